// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import HeadingOutputs

/// The field of ``DaemonSettings`` a key sets, named in the key's declaration (``SettingKey``):
/// how the layers' value is read into it, and how it is written back as TOML for
/// `--check-config`. The field itself declares the type and the default.
struct SettingBinding: Sendable {
    /// Sets the field from the layers' value for `key`, when they have one (already checked by
    /// the schema).
    let read: @Sendable (_ reader: ConfigReader, _ key: ConfigKey, _ settings: inout DaemonSettings) -> Void
    /// The field's value as a TOML value; `nil` when it has none, written as a comment.
    let write: @Sendable (DaemonSettings) -> String?
    /// What the comment says when the field has no value.
    let none: String
    /// The field's value as `--help` and the man page say it (`2`, `text`, `HDT,HDG,THS`); `nil`
    /// when it has none.
    let show: @Sendable (DaemonSettings) -> String?

    /// A field of type `Value`, read from the layers' text by `read`, written by `write` and shown by `show`.
    static func field<Value>(
        _ field: WritableKeyPath<DaemonSettings, Value> & Sendable, none: String = "none",
        read: @escaping @Sendable (ConfigReader, ConfigKey) -> Value?, write: @escaping @Sendable (Value) -> String?,
        show: @escaping @Sendable (Value) -> String?
    ) -> SettingBinding {
        SettingBinding(
            read: { reader, key, settings in
                if let value = read(reader, key) { settings[keyPath: field] = value }
            },
            write: { write($0[keyPath: field]) },
            none: none,
            show: { show($0[keyPath: field]) }
        )
    }

    /// A number.
    static func number(_ field: WritableKeyPath<DaemonSettings, Double> & Sendable) -> SettingBinding {
        .field(field, read: { $0.double(forKey: $1) }, write: { "\($0)" }, show: shown)
    }

    /// An integer.
    static func integer(_ field: WritableKeyPath<DaemonSettings, Int> & Sendable) -> SettingBinding {
        .field(field, read: { $0.int(forKey: $1) }, write: { "\($0)" }, show: { "\($0)" })
    }

    /// An integer of 0 or more (the schema refuses a negative one).
    static func unsigned(_ field: WritableKeyPath<DaemonSettings, UInt64> & Sendable) -> SettingBinding {
        .field(field, read: { $0.int(forKey: $1).map { UInt64(clamping: $0) } }, write: { "\($0)" }, show: { "\($0)" })
    }

    /// True or false.
    static func flag(_ field: WritableKeyPath<DaemonSettings, Bool> & Sendable) -> SettingBinding {
        .field(field, read: { $0.bool(forKey: $1) }, write: { "\($0)" }, show: { "\($0)" })
    }

    /// A string, as given.
    static func text(_ field: WritableKeyPath<DaemonSettings, String> & Sendable) -> SettingBinding {
        .field(field, read: { $0.string(forKey: $1) }, write: { JSONText.quoted($0) }, show: { $0.isEmpty ? nil : $0 })
    }

    /// A string, or none: `""` is none.
    static func optionalText(_ field: WritableKeyPath<DaemonSettings, String?> & Sendable) -> SettingBinding {
        .field(
            field, read: { reader, key in reader.string(forKey: key).map { $0.isEmpty ? nil : $0 } }, write: { JSONText.quoted($0 ?? "") },
            show: { $0 }
        )
    }

    /// A value written as a string (`parse` is what the schema checked, `describe` its inverse).
    static func parsed<Value>(
        _ field: WritableKeyPath<DaemonSettings, Value> & Sendable, _ parse: @escaping @Sendable (String) -> Value?,
        _ describe: @escaping @Sendable (Value) -> String
    ) -> SettingBinding {
        .field(field, read: { $0.string(forKey: $1).flatMap(parse) }, write: { JSONText.quoted(describe($0)) }, show: describe)
    }

    /// A value written as a string, or none. Read, `""` is none. Written, none is `""` — or, given
    /// `none`, a comment saying it (for a key where `""` is not a valid value, such as `position`).
    static func optionalParsed<Value>(
        _ field: WritableKeyPath<DaemonSettings, Value?> & Sendable, none: String? = nil, _ parse: @escaping @Sendable (String) -> Value?,
        _ describe: @escaping @Sendable (Value) -> String
    ) -> SettingBinding {
        .field(
            field, none: none ?? "none",
            read: { reader, key in reader.string(forKey: key).map { $0.isEmpty ? nil : parse($0) } },
            write: { value in value.map { JSONText.quoted(describe($0)) } ?? (none == nil ? JSONText.quoted("") : nil) },
            show: { $0.map(describe) }
        )
    }

    /// A list of values each written as a string.
    static func list<Value>(
        _ field: WritableKeyPath<DaemonSettings, [Value]> & Sendable, _ parse: @escaping @Sendable (String) -> Value?,
        _ describe: @escaping @Sendable (Value) -> String
    ) -> SettingBinding {
        .field(
            field, read: { $0.stringArray(forKey: $1)?.compactMap(parse) },
            write: { "[" + $0.map { JSONText.quoted(describe($0)) }.joined(separator: ", ") + "]" },
            show: { $0.isEmpty ? nil : $0.map(describe).joined(separator: ",") }
        )
    }

    /// A number as a person writes it: `2`, not `2.0`; `0.5`.
    private static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
    }
}
