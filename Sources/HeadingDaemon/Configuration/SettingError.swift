// headingd
// SPDX-License-Identifier: Apache-2.0

/// Why one value is wrong, in words that fit after the key's name: `must be between 0 and 180 degrees`.
struct SettingError: Error, Sendable {
    /// What is wrong.
    let reason: String

    /// Creates an error.
    /// - Parameter reason: What is wrong.
    init(_ reason: String) { self.reason = reason }
}
