// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// One NMEA 0183 sentence, split into fields, with its checksum verified when it has one.
///
/// Parsing is a pure function over bytes: no I/O, no allocation beyond the sentence itself.
public struct NMEASentence: Sendable, Hashable {
    /// The longest sentence accepted, in characters. NMEA 0183 allows 82 including CR LF;
    /// proprietary sentences run longer, so the limit is generous.
    public static let maximumLength = 200

    /// The sentence's characters, from `$` or `!` to the last field (no checksum, no line ending).
    private let bytes: [UInt8]
    /// Where each field starts and ends in `bytes`; field 0 is the address (`GPHDT`, `PASHR`).
    private let fieldRanges: [Range<Int>]
    /// Whether the sentence carried a checksum (`*hh`), which was then verified.
    public let hasChecksum: Bool

    /// Parses one line.
    ///
    /// Accepts a leading `$` or `!`, fields separated by commas, an optional `*hh` checksum and
    /// trailing CR/LF. Fails on a bad or malformed checksum, control or non-ASCII bytes, an
    /// address that is not letters and digits, or a sentence over ``maximumLength``.
    /// - Parameter line: The line's bytes.
    /// - Throws: ``LineDecodingError`` naming what is wrong.
    public init(_ line: some Collection<UInt8>) throws(LineDecodingError) {
        var bytes = Array(line)
        while let last = bytes.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") || last == UInt8(ascii: " ") {
            bytes.removeLast()
        }
        guard let first = bytes.first, first == UInt8(ascii: "$") || first == UInt8(ascii: "!") else {
            throw .malformed("not an NMEA 0183 sentence: it does not start with '$' or '!'")
        }
        guard bytes.count <= Self.maximumLength else {
            throw .malformed("sentence of \(bytes.count) characters is longer than \(Self.maximumLength)")
        }
        if let bad = bytes.first(where: { $0 < 0x20 || $0 > 0x7E }) {
            throw .malformed("binary data in sentence (byte 0x\(String(bad, radix: 16, uppercase: true)))")
        }
        let star = bytes.lastIndex(of: UInt8(ascii: "*"))
        if let star {
            let digits = bytes[(star + 1)...]
            guard digits.count == 2, let high = Self.hexValue(digits.first!), let low = Self.hexValue(digits.last!) else {
                throw .malformed("checksum '\(String(decoding: digits, as: UTF8.self))' is not two hexadecimal digits")
            }
            let expected = high << 4 | low
            let actual = bytes[1..<star].reduce(0, ^)
            guard expected == actual else {
                throw .malformed(
                    "checksum mismatch: sentence says \(Self.hex(expected)), content gives \(Self.hex(actual))"
                )
            }
            bytes.removeSubrange(star...)
        }
        var ranges: [Range<Int>] = []
        var start = 1
        for index in 1..<bytes.count where bytes[index] == UInt8(ascii: ",") {
            ranges.append(start..<index)
            start = index + 1
        }
        ranges.append(start..<bytes.count)
        let address = bytes[ranges[0]]
        guard address.count >= 3, address.allSatisfy({ Self.isAlphanumeric($0) }) else {
            throw .malformed("sentence address '\(String(decoding: address, as: UTF8.self))' is not letters and digits")
        }
        self.bytes = bytes
        self.fieldRanges = ranges
        self.hasChecksum = star != nil
    }

    /// Parses one line given as a string.
    /// - Parameter line: The sentence.
    /// - Throws: ``LineDecodingError`` naming what is wrong.
    public init(_ line: String) throws(LineDecodingError) {
        try self.init(Array(line.utf8))
    }

    /// The address: talker and type (`GPHDT`), or a proprietary name (`PASHR`, `PTNTHTM`).
    public var address: String { String(decoding: bytes[fieldRanges[0]], as: UTF8.self) }

    /// Whether the address is proprietary (starts with `P`): no talker ID.
    public var isProprietary: Bool { bytes[fieldRanges[0].lowerBound] == UInt8(ascii: "P") }

    /// The two-letter talker ID (`GP`, `HE`, `SD`), or `nil` for proprietary sentences.
    public var talker: String? {
        isProprietary ? nil : String(decoding: bytes[fieldRanges[0].prefix(2)], as: UTF8.self)
    }

    /// The sentence type: the address without its talker (`HDT`), or the whole proprietary address.
    public var type: String {
        isProprietary ? address : String(decoding: bytes[fieldRanges[0].dropFirst(2)], as: UTF8.self)
    }

    /// The number of data fields after the address.
    public var fieldCount: Int { fieldRanges.count - 1 }

    /// The text of data field `index` (1-based, as NMEA documents number them); empty when absent.
    /// - Parameter index: The field number, 1 for the first field after the address.
    public subscript(index: Int) -> Substring {
        guard index >= 1, index < fieldRanges.count else { return "" }
        return Substring(decoding: bytes[fieldRanges[index]], as: UTF8.self)
    }

    /// Data field `index` as a number, `nil` when the field is empty or absent.
    ///
    /// The text is checked before conversion — an optional sign, digits and at most one decimal
    /// point, at most 20 characters — because `Double(_:)` accepts forms (and on Linux, trailing
    /// junk after a NUL) that no device sends.
    /// - Parameters:
    ///   - index: The field number.
    ///   - name: What the field is, for the error message.
    /// - Throws: ``LineDecodingError`` when the field is not a plain decimal number.
    public func number(_ index: Int, _ name: String) throws(LineDecodingError) -> Double? {
        guard index >= 1, index < fieldRanges.count, !fieldRanges[index].isEmpty else { return nil }
        return try Self.decimal(bytes[fieldRanges[index]], field: index, name: name)
    }

    /// The single character of data field `index`, `nil` when empty.
    /// - Parameter index: The field number.
    public func character(_ index: Int) -> Character? {
        guard index >= 1, index < fieldRanges.count, fieldRanges[index].count >= 1 else { return nil }
        return Character(Unicode.Scalar(bytes[fieldRanges[index].lowerBound]))
    }

    static func decimal(_ text: ArraySlice<UInt8>, field: Int, name: String) throws(LineDecodingError) -> Double {
        let shown = { String(decoding: text.prefix(24), as: UTF8.self) + (text.count > 24 ? "…" : "") }
        guard text.count <= 20 else {
            throw .malformed("field \(field) (\(name)) is \(text.count) characters long: '\(shown())'")
        }
        var digits = 0
        var points = 0
        for (offset, byte) in text.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."): points += 1
            case UInt8(ascii: "+") where offset == 0, UInt8(ascii: "-") where offset == 0: break
            default: throw .malformed("field \(field) (\(name)) is not a number: '\(shown())'")
            }
        }
        guard digits > 0, points <= 1, let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            throw .malformed("field \(field) (\(name)) is not a number: '\(shown())'")
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func hex(_ value: UInt8) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return text.count == 1 ? "0" + text : text
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
