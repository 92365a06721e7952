// headingd
// SPDX-License-Identifier: Apache-2.0

/// Why a candidate cannot be listened to.
struct ScanCandidateError: Error, Sendable, CustomStringConvertible {
    /// A sentence for a person.
    let reason: String
    /// The reason.
    var description: String { reason }
}
