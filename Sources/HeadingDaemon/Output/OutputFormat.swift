// headingd
// SPDX-License-Identifier: Apache-2.0

/// How headingd writes each heading on standard output.
enum OutputFormat: String, CaseIterable, Sendable {
    /// One readable line per heading.
    case text
    /// One JSON object per line (JSON Lines).
    case json
}
