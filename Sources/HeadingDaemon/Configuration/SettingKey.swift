// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import Foundation

/// One configuration key headingd knows, declared once: its dotted name (`simulation.rate`), its
/// command-line option, the type of its value, what a valid value is, its help, and the field of
/// ``DaemonSettings`` it sets (read from the layers and written by `--check-config` through it). The same key
/// is `rate` in the TOML table `[simulation]`, `HEADINGD_SIMULATION_RATE` in the environment, and
/// `--rate` on the command line (parsed by ``SettingOptions``, listed by `--help` and the man page
/// from this declaration), and every one of those layers is checked by ``validate(_:)``: one set
/// of bounds, one message per rule.
struct SettingKey: Sendable {
    /// The value's type.
    enum Kind: Sendable {
        case string, double, integer, bool
        /// One string or several: a TOML string or array of strings; in the environment, words
        /// separated by spaces.
        case stringList

        var name: String {
            switch self {
            case .stringList: "a string or an array of strings"
            case .string: "a string"
            case .double: "a number"
            case .integer: "an integer"
            case .bool: "true or false"
            }
        }
    }

    /// Where `--help` and the man page list a key's option, in this order.
    enum Group: String, Sendable, CaseIterable {
        case sources = "Sources"
        case processing = "Processing"
        case replay = "Replay"
        case simulation = "Simulation"
        case output = "Output"
        case mqtt = "MQTT"
        case nmea2000 = "NMEA 2000 output"
    }

    /// The dotted name, such as `simulation.rate`.
    let name: String
    /// The command-line option that sets it, such as `--rate`.
    let option: String
    /// The value's type.
    let kind: Kind
    /// Where its option is listed.
    let group: Group
    /// The field of ``DaemonSettings`` it sets, and how.
    let field: SettingBinding
    /// What its option's value is called in `--help` (`seconds`); `nil` for a flag (a
    /// ``Kind/bool`` key's option takes no value: given, it is `true`).
    let valueName: String?
    /// What it does, with its default, as `--help` and the man page say it: the declaration's
    /// words, then (but for a flag) `(default: VALUE)`, the value its field has in a
    /// ``DaemonSettings`` made anew (written once, in the field), said as the field's binding
    /// shows it.
    let help: String
    /// What the shipped configuration file (``ShippedConfiguration``) says above the key's line:
    /// the declaration's `file` words, else its help's (without the default, which the line
    /// shows); empty when the comment above it covers it too.
    let fileComment: String
    /// TOML values the shipped file shows as examples, commented out, above the default's line.
    let fileExamples: [String]
    /// The TOML value the shipped file sets (uncommented: the installed service's own), or `nil`
    /// when it leaves the key at its default.
    let installedValue: String?
    /// Whether its option is given once for each value of a list (`--source A --source B`: a
    /// value may hold commas), rather than once with the list comma-separated.
    let optionRepeats: Bool
    /// Why a value of the right type is still wrong, or `nil` when it is fine.
    let check: @Sendable (ConfigContent) -> String?

    /// The environment variable that sets this key, such as `HEADINGD_SIMULATION_RATE`.
    var environmentName: String {
        "HEADINGD_" + name.uppercased().map { $0 == "." ? "_" : $0 }.map(String.init).joined()
    }

    /// Creates a key.
    /// - Parameters:
    ///   - name: The dotted name.
    ///   - option: The command-line option.
    ///   - kind: The value's type.
    ///   - group: Where its option is listed.
    ///   - field: The field of ``DaemonSettings`` it sets.
    ///   - valueName: What its option's value is called; leave it out for a flag.
    ///   - help: What it does; `(default: VALUE)` is added from the field.
    ///   - file: What the shipped configuration file says of it, when not `help`'s words; `""` for
    ///     nothing (the comment above covers it).
    ///   - examples: TOML values the shipped file shows as examples.
    ///   - installed: The TOML value the shipped file sets, when it does not leave the default.
    ///   - defaultShown: What the default is called when the field's value is not what a person
    ///     reads (`the Signal K self`, a path made at start); `nil` shows the field's value.
    ///   - defaultNote: Words after the default's value (`, integrated instrumentation`).
    ///   - optionRepeats: Whether its option is given once a value (a ``Kind/stringList`` key's).
    ///   - check: Why a value of the right type is still wrong, or `nil`.
    init(
        name: String, option: String, kind: Kind, group: Group, field: SettingBinding, valueName: String? = nil, help: String,
        file: String? = nil, examples: [String] = [], installed: String? = nil, defaultShown: String? = nil, defaultNote: String = "", optionRepeats: Bool = false,
        check: @escaping @Sendable (ConfigContent) -> String? = { _ in nil }
    ) {
        self.name = name
        self.option = option
        self.kind = kind
        self.group = group
        self.field = field
        self.valueName = kind == .bool ? nil : valueName ?? "value"
        // A flag says what it turns on: off is its default.
        self.help = kind != .bool ? help + " (default: \(defaultShown ?? field.show(DaemonSettings()) ?? "none")\(defaultNote))" : help
        self.fileComment = file ?? help
        self.fileExamples = examples
        self.installedValue = installed
        self.optionRepeats = optionRepeats
        self.check = check
    }

    /// `keys` as a TOML document lays them out: the root's first (TOML wants them before any
    /// table), then each table's, the tables in the order their first key is declared; each key
    /// with its name within its table (`rate` for `simulation.rate`). What `--check-config` prints
    /// and the shipped file are both laid out so.
    static func byTable(_ keys: [SettingKey]) -> [(table: String?, keys: [(key: SettingKey, leaf: String)])] {
        var root: [(key: SettingKey, leaf: String)] = []
        var tables: [(table: String?, keys: [(key: SettingKey, leaf: String)])] = []
        for key in keys {
            let path = key.name.split(separator: ".")
            let entry = (key: key, leaf: String(path.last ?? ""))
            guard path.count > 1 else {
                root.append(entry)
                continue
            }
            let table = path.dropLast().joined(separator: ".")
            if let index = tables.firstIndex(where: { $0.table == table }) {
                tables[index].keys.append(entry)
            } else {
                tables.append((table, [entry]))
            }
        }
        return (root.isEmpty ? [] : [(nil, root)]) + tables
    }

    /// Whether the option is a flag, taking no value.
    var isFlag: Bool { kind == .bool }

    /// Checks a value from any layer (a TOML file, the environment, an option): its type (an integer is accepted for a number), then
    /// its range. Returns the value to store, or the reason it is wrong.
    func validate(_ content: ConfigContent) -> Result<ConfigContent, ConfigurationError> {
        var content = content
        switch (kind, content) {
        case (.string, .string), (.integer, .int), (.bool, .bool), (.double, .double), (.stringList, .stringArray): break
        case (.double, .int(let integer)): content = .double(Double(integer))
        case (.stringList, .string(let string)): content = .stringArray([string])
        default: return .failure(ConfigurationError.invalid("must be \(kind.name)"))
        }
        if let reason = check(content) { return .failure(ConfigurationError.invalid(reason)) }
        return .success(content)
    }

    /// Parses a value given as text (environment, command line), then validates it.
    func parse(_ text: String) -> Result<ConfigContent, ConfigurationError> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let content: ConfigContent?
        switch kind {
        case .string: content = .string(text)
        case .stringList:
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            content = words.isEmpty ? nil : .stringArray(words)
        case .double:
            // Decimal digits, a sign, a point and an exponent, as TOML and the options take them; not
            // `nan`, `inf` or hexadecimal, which `Double(_:)` would also accept.
            content = trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || ".-+eE".contains($0)) }) ? Double(trimmed).map(ConfigContent.double) : nil
        case .integer:
            content = Int(trimmed).map(ConfigContent.int)
        case .bool:
            content = ["true": true, "1": true, "yes": true, "false": false, "0": false, "no": false][trimmed.lowercased()]
                .map(ConfigContent.bool)
        }
        guard let content else { return .failure(ConfigurationError.invalid("'\(text.prefix(40))' is not \(kind.name)")) }
        return validate(content)
    }
}

