// headingd
// SPDX-License-Identifier: Apache-2.0

import TOMLKit

/// A parsed TOML file as headingd reads it: its tables and values in the parser's order, each
/// under its dotted name, or the parser's error. Plain values only, so that it can be made in the
/// child process that parses (``IsolatedTOMLCheck``) and sent to the daemon as bytes.
///
/// The daemon itself never holds a `TOMLTable`: TOMLKit 0.6.0 frees none (its `TOMLTable` has no
/// `deinit`, and `init(string:)` also leaks its error buffer), so every reload that parsed in-process
/// kept the whole parsed tree: heaptrack counted 96 bytes a reload for an empty file, more for a
/// real one. In the child that memory ends with the process.
struct TOMLDocument: Equatable, Sendable {
    /// One value of the file.
    enum Value: Equatable, Sendable {
        /// A table (its values follow as their own entries, under longer names).
        case table
        /// A string.
        case string(String)
        /// A boolean.
        case bool(Bool)
        /// An integer.
        case integer(Int)
        /// A floating-point number.
        case double(Double)
        /// An array of strings only.
        case stringArray([String])
        /// Anything else (a date or time, an array holding other values, an array of tables).
        case other
    }

    /// One value under its dotted name (`outputs.signalk.listen`).
    struct Entry: Equatable, Sendable {
        /// The dotted name: the names of its tables and its own, joined by `.`.
        var name: String
        /// The value.
        var value: Value
    }

    /// Where the parser stopped on text that is not valid TOML, and why: recorded, never thrown (the
    /// loader says it as a ``ConfigurationError`` with the file and line).
    struct ParseError: Equatable, Sendable {
        /// The line (from 1).
        var line: Int
        /// The parser's message.
        var description: String
    }

    /// The values, tables before what they hold, in the parser's order; empty after a parse error.
    var entries: [Entry]
    /// The parser's error, when the text is not valid TOML.
    var parseError: ParseError?

    /// Parses `text` with TOMLKit, in this process: what the checking child does.
    init(parsing text: String) {
        do {
            let table = try TOMLTable(string: text)
            entries = []
            parseError = nil
            Self.walk(table, prefix: "", into: &entries)
        } catch let error as TOMLParseError {
            entries = []
            parseError = ParseError(line: error.source.begin.line, description: error.description)
        } catch {
            entries = []
            parseError = ParseError(line: 0, description: "\(error)")
        }
    }

    /// A document made of `entries` (and no error).
    init(entries: [Entry]) {
        self.entries = entries
        parseError = nil
    }

    private static func walk(_ table: TOMLTable, prefix: String, into entries: inout [Entry]) {
        for name in table.keys {
            guard let value = table[name] else { continue }
            let full = prefix + name
            if let nested = value.table {
                entries.append(Entry(name: full, value: .table))
                walk(nested, prefix: full + ".", into: &entries)
            } else if let array = value.array {
                let strings = array.compactMap(\.string)
                entries.append(Entry(name: full, value: strings.count == array.count ? .stringArray(strings) : .other))
            } else if let string = value.string {
                entries.append(Entry(name: full, value: .string(string)))
            } else if let bool = value.bool {
                entries.append(Entry(name: full, value: .bool(bool)))
            } else if let integer = value.int {
                entries.append(Entry(name: full, value: .integer(integer)))
            } else if let double = value.double {
                entries.append(Entry(name: full, value: .double(double)))
            } else {
                entries.append(Entry(name: full, value: .other))
            }
        }
    }
}

// MARK: - Bytes between the child and the daemon

extension TOMLDocument {
    /// The document as bytes: per entry a kind letter and its fields, each field its length in
    /// decimal, `:`, then its UTF-8 bytes (`S5:title3:abc`); an error is `E` with line and message.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        func field(_ text: String) {
            bytes += Array(String(text.utf8.count).utf8)
            bytes.append(UInt8(ascii: ":"))
            bytes += Array(text.utf8)
        }
        if let parseError {
            bytes.append(UInt8(ascii: "E"))
            field(String(parseError.line))
            field(parseError.description)
            return bytes
        }
        for entry in entries {
            switch entry.value {
            case .table: bytes.append(UInt8(ascii: "T")); field(entry.name)
            case .string(let string): bytes.append(UInt8(ascii: "S")); field(entry.name); field(string)
            case .bool(let bool): bytes.append(UInt8(ascii: "B")); field(entry.name); field(bool ? "1" : "0")
            case .integer(let integer): bytes.append(UInt8(ascii: "I")); field(entry.name); field(String(integer))
            case .double(let double): bytes.append(UInt8(ascii: "D")); field(entry.name); field(String(double.bitPattern, radix: 16))
            case .stringArray(let strings):
                bytes.append(UInt8(ascii: "A")); field(entry.name); field(String(strings.count))
                strings.forEach(field)
            case .other: bytes.append(UInt8(ascii: "X")); field(entry.name)
            }
        }
        return bytes
    }

    /// Reads ``encoded`` bytes back; `nil` for anything else (bytes are checked, never trusted).
    init?(decoding bytes: [UInt8]) {
        var cursor = 0
        func field() -> String? {
            var length = 0
            var digits = 0
            while cursor < bytes.count, bytes[cursor] != UInt8(ascii: ":") {
                let digit = Int(bytes[cursor]) - Int(UInt8(ascii: "0"))
                guard (0...9).contains(digit), digits < 9 else { return nil }
                length = length * 10 + digit
                digits += 1
                cursor += 1
            }
            guard digits > 0, cursor < bytes.count, length <= bytes.count - cursor - 1 else { return nil }
            let start = cursor + 1
            cursor = start + length
            return String(validating: bytes[start..<cursor], as: UTF8.self)
        }
        var entries: [Entry] = []
        while cursor < bytes.count {
            let kind = bytes[cursor]
            cursor += 1
            if kind == UInt8(ascii: "E") {
                guard let lineText = field(), let line = Int(lineText), let description = field(), cursor == bytes.count else { return nil }
                self.entries = []
                parseError = ParseError(line: line, description: description)
                return
            }
            guard let name = field() else { return nil }
            let value: Value
            switch kind {
            case UInt8(ascii: "T"): value = .table
            case UInt8(ascii: "X"): value = .other
            case UInt8(ascii: "S"):
                guard let string = field() else { return nil }
                value = .string(string)
            case UInt8(ascii: "B"):
                guard let text = field(), text == "0" || text == "1" else { return nil }
                value = .bool(text == "1")
            case UInt8(ascii: "I"):
                guard let text = field(), let integer = Int(text) else { return nil }
                value = .integer(integer)
            case UInt8(ascii: "D"):
                guard let text = field(), let bits = UInt64(text, radix: 16) else { return nil }
                value = .double(Double(bitPattern: bits))
            case UInt8(ascii: "A"):
                guard let countText = field(), let count = Int(countText), count >= 0, count <= bytes.count - cursor else { return nil }
                var strings: [String] = []
                for _ in 0..<count {
                    guard let string = field() else { return nil }
                    strings.append(string)
                }
                value = .stringArray(strings)
            default: return nil
            }
            entries.append(Entry(name: name, value: value))
        }
        self.entries = entries
        parseError = nil
    }
}
