// headingd
// SPDX-License-Identifier: Apache-2.0

/// A configuration value that is wrong, and where it came from.
struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The file (`/etc/headingd/headingd.toml`), environment variable or option the value came from.
    let origin: String
    /// The key, when the problem is one key.
    let key: String?
    /// What is wrong.
    let reason: String

    /// `ORIGIN: key 'KEY': REASON`.
    var description: String {
        key.map { "\(origin): key '\($0)': \(reason)" } ?? "\(origin): \(reason)"
    }
}
