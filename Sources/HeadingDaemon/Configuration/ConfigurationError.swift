// headingd
// SPDX-License-Identifier: Apache-2.0

/// A configuration that is wrong: the one error of the settings (command line, environment, files,
/// their values), keeping what a person needs to fix it: where it came from, which key, and why.
///
/// A value's check says why before it is known where the value came from
/// (``invalid(_:)``: `must be between 0 and 180 degrees`); the layer that read it then says where
/// (``init(origin:key:reason:)``, from the first one's ``reason``).
struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem, as stable values.
    struct Code: RawRepresentable, Sendable, Hashable {
        let rawValue: String

        /// A value that is wrong, or a file that is no configuration (exit 78, `EX_CONFIG`).
        static let invalid = Code(rawValue: "invalid")
        /// A command line that is wrong as a command line: an option without its value, a value
        /// given to a flag (exit 64, `EX_USAGE`, with a pointer to `--help`).
        static let usage = Code(rawValue: "usage")
    }

    /// What kind.
    let code: Code
    /// The file (`/etc/headingd/headingd.toml`), environment variable or option the value came
    /// from; empty while not known.
    let origin: String
    /// The key, when the problem is one key.
    let key: String?
    /// What is wrong, in words that fit after the key's name.
    let reason: String

    /// A wrong value from `origin`.
    init(origin: String, key: String?, reason: String) {
        code = .invalid
        self.origin = origin
        self.key = key
        self.reason = reason
    }

    private init(code: Code, reason: String) {
        self.code = code
        origin = ""
        self.key = nil
        self.reason = reason
    }

    /// Why a value is wrong, before it is known where it came from: `must be between 0 and 180 degrees`.
    static func invalid(_ reason: String) -> ConfigurationError { ConfigurationError(code: .invalid, reason: reason) }

    /// A command line that is wrong as one: `Missing value for '--filter <degrees>'`.
    static func usage(_ message: String) -> ConfigurationError { ConfigurationError(code: .usage, reason: message) }

    /// `ORIGIN: key 'KEY': REASON`; the reason alone while the origin is not known.
    var description: String {
        guard !origin.isEmpty else { return reason }
        return key.map { "\(origin): key '\($0)': \(reason)" } ?? "\(origin): \(reason)"
    }
}
