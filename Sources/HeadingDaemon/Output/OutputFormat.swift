// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// How headingd writes each heading on standard output.
enum OutputFormat: String, CaseIterable, Sendable, ExpressibleByArgument {
    /// One readable line per heading.
    case text
    /// One JSON object per line (JSON Lines).
    case json
}
