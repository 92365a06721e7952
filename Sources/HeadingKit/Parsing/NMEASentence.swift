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
    /// Where the first ``FieldStarts/capacity`` fields start in `bytes`, kept inline (no second
    /// allocation per sentence); field 0 is the address (`GPHDT`, `PASHR`).
    private let starts: FieldStarts
    /// The number of fields, the address included.
    private let fieldTotal: Int
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
        let parsed = line.withContiguousStorageIfAvailable { Self.parse($0) } ?? Array(line).withUnsafeBufferPointer { Self.parse($0) }
        self = try parsed.get()
    }

    private init(bytes: [UInt8], starts: FieldStarts, fieldTotal: Int, hasChecksum: Bool) {
        self.bytes = bytes
        self.starts = starts
        self.fieldTotal = fieldTotal
        self.hasChecksum = hasChecksum
    }

    /// Parses a sentence where its bytes lie, in one pass over them (the checks, the checksum and
    /// the fields' starts together), and copies the sentence's content once.
    private static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<NMEASentence, LineDecodingError> {
        do throws(LineDecodingError) {
            return .success(try parseOrThrow(line))
        } catch {
            return .failure(error)
        }
    }

    private static func parseOrThrow(_ line: UnsafeBufferPointer<UInt8>) throws(LineDecodingError) -> NMEASentence {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\r") || line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: " ") {
            end -= 1
        }
        guard end > 0, line[0] == UInt8(ascii: "$") || line[0] == UInt8(ascii: "!") else {
            throw .malformed("not an NMEA 0183 sentence: it does not start with '$' or '!'")
        }
        guard end <= Self.maximumLength else {
            throw .malformed("sentence of \(end) characters is longer than \(Self.maximumLength)")
        }
        var checksum: UInt8 = 0
        var checksumBeforeStar: UInt8 = 0
        var star: Int?
        var starts = FieldStarts()
        starts[0] = 1
        var total = 1
        var addressEnd = end
        for index in 1..<end {
            let byte = line[index]
            guard byte >= 0x20, byte <= 0x7E else {
                throw .malformed("binary data in sentence (byte 0x\(String(byte, radix: 16, uppercase: true)))")
            }
            if byte == UInt8(ascii: "*") {
                star = index
                checksumBeforeStar = checksum
            } else if byte == UInt8(ascii: ",") {
                // A comma after the last `*` can only be in a malformed checksum, refused below.
                if total == 1 { addressEnd = index }
                if total < FieldStarts.capacity { starts[total] = index + 1 }
                total += 1
            }
            checksum ^= byte
        }
        var contentEnd = end
        if let star {
            let digits = UnsafeBufferPointer(rebasing: line[(star + 1)..<end])
            guard digits.count == 2, let high = Self.hexValue(digits[0]), let low = Self.hexValue(digits[1]) else {
                throw .malformed("checksum '\(String(decoding: digits, as: UTF8.self))' is not two hexadecimal digits")
            }
            let expected = high << 4 | low
            guard expected == checksumBeforeStar else {
                throw .malformed(
                    "checksum mismatch: sentence says \(Self.hex(expected)), content gives \(Self.hex(checksumBeforeStar))"
                )
            }
            contentEnd = star
            addressEnd = min(addressEnd, star)
        }
        let address = UnsafeBufferPointer(rebasing: line[1..<addressEnd])
        guard address.count >= 3, address.allSatisfy({ Self.isAlphanumeric($0) }) else {
            throw .malformed("sentence address '\(String(decoding: address, as: UTF8.self))' is not letters and digits")
        }
        return NMEASentence(
            bytes: Array(UnsafeBufferPointer(rebasing: line[..<contentEnd])), starts: starts, fieldTotal: total,
            hasChecksum: star != nil
        )
    }

    /// Where field `index` (0 for the address) lies in `bytes`; `index` must be below `fieldTotal`.
    private func range(ofField index: Int) -> Range<Int> {
        var start: Int
        var field: Int
        if index < FieldStarts.capacity {
            start = starts[index]
            field = index
        } else {
            // Fields past the inline table: count commas on from its last entry.
            start = starts[FieldStarts.capacity - 1]
            field = FieldStarts.capacity - 1
            while field < index {
                start = bytes[start...].firstIndex(of: UInt8(ascii: ",")).map { $0 + 1 } ?? bytes.count
                field += 1
            }
        }
        // The next field's start, when the table has it, is one past this field's comma.
        if field + 1 < fieldTotal, field + 1 < FieldStarts.capacity { return start..<(starts[field + 1] - 1) }
        let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
        return start..<end
    }

    /// Parses one line given as a string.
    /// - Parameter line: The sentence.
    /// - Throws: ``LineDecodingError`` naming what is wrong.
    public init(_ line: String) throws(LineDecodingError) {
        try self.init(Array(line.utf8))
    }

    /// The address: talker and type (`GPHDT`), or a proprietary name (`PASHR`, `PTNTHTM`).
    public var address: String { String(decoding: bytes[range(ofField: 0)], as: UTF8.self) }

    /// Whether the address is proprietary (starts with `P`): no talker ID.
    public var isProprietary: Bool { bytes[1] == UInt8(ascii: "P") }

    /// The two-letter talker ID (`GP`, `HE`, `SD`), or `nil` for proprietary sentences.
    public var talker: String? {
        isProprietary ? nil : String(decoding: bytes[1..<3], as: UTF8.self)
    }

    /// The sentence type: the address without its talker (`HDT`), or the whole proprietary address.
    public var type: String {
        isProprietary ? address : String(decoding: bytes[range(ofField: 0).dropFirst(2)], as: UTF8.self)
    }

    /// The talker ID's two bytes, or `nil` for proprietary sentences: ``talker`` without a string.
    var talkerBytes: (UInt8, UInt8)? {
        isProprietary || bytes.count < 3 ? nil : (bytes[1], bytes[2])
    }

    /// The sentence type's bytes packed into an integer, the first byte lowest (`HDT` is
    /// `0x544448`); 0 for a type longer than eight bytes or an address too short to have one.
    /// For decoders that tell types apart without making a string of each.
    var packedType: UInt64 {
        let field = range(ofField: 0)
        let start = isProprietary ? field.lowerBound : field.lowerBound + 2
        guard start < field.upperBound else { return 0 }
        return NMEASentenceType.pack(bytes[start..<field.upperBound])
    }

    /// Whether data field `index` is exactly the one character `letter` (a unit or status letter).
    func field(_ index: Int, is letter: UInt8) -> Bool {
        guard index >= 1, index < fieldTotal else { return false }
        let range = range(ofField: index)
        return range.count == 1 && bytes[range.lowerBound] == letter
    }

    /// The number of data fields after the address.
    public var fieldCount: Int { fieldTotal - 1 }

    /// The text of data field `index` (1-based, as NMEA documents number them); empty when absent.
    /// - Parameter index: The field number, 1 for the first field after the address.
    public subscript(index: Int) -> Substring {
        guard index >= 1, index < fieldTotal else { return "" }
        return Substring(decoding: bytes[range(ofField: index)], as: UTF8.self)
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
        guard index >= 1, index < fieldTotal else { return nil }
        let range = range(ofField: index)
        guard !range.isEmpty else { return nil }
        return try Self.decimal(bytes[range], field: index, name: name)
    }

    /// The single character of data field `index`, `nil` when empty.
    /// - Parameter index: The field number.
    public func character(_ index: Int) -> Character? {
        firstByte(index).map { Character(Unicode.Scalar($0)) }
    }

    /// The first byte of data field `index`, `nil` when empty: ``character(_:)`` without making a
    /// `Character` (a status or direction letter compared on every sentence).
    /// - Parameter index: The field number.
    func firstByte(_ index: Int) -> UInt8? {
        guard index >= 1, index < fieldTotal else { return nil }
        let range = range(ofField: index)
        return range.isEmpty ? nil : bytes[range.lowerBound]
    }

    static func decimal(_ text: ArraySlice<UInt8>, field: Int, name: String) throws(LineDecodingError) -> Double {
        let shown = { String(decoding: text.prefix(24), as: UTF8.self) + (text.count > 24 ? "…" : "") }
        guard text.count <= 20 else {
            throw .malformed("field \(field) (\(name)) is \(text.count) characters long: '\(shown())'")
        }
        guard let value = plainDecimal(text) else {
            throw .malformed("field \(field) (\(name)) is not a number: '\(shown())'")
        }
        return value
    }

    /// Reads an optional sign, digits and at most one decimal point (at least one digit), with no
    /// exponent, no spaces and nothing after; `nil` for anything else. The value is the one
    /// `strtod` gives, correctly rounded: exactly, from the digits as an integer and one division
    /// by a power of ten, when both are exact doubles (up to 15 significant digits and 22
    /// decimals, every heading a device sends), and from `strtod` (through `Double(_:)`) when not.
    /// - Parameter text: The field's bytes.
    /// - Returns: The value, or `nil` when `text` is not a plain decimal number.
    static func plainDecimal(_ text: ArraySlice<UInt8>) -> Double? {
        text.withUnsafeBufferPointer { plainDecimal($0) }
    }

    /// The same for bytes in a buffer (a gpsd JSON report's, or an NMEA field's), read
    /// where they lie.
    /// - Parameter text: The number's bytes.
    /// - Returns: The value, or `nil` when `text` is not a plain decimal number.
    static func plainDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = text.startIndex
        var isNegative = false
        if index < text.endIndex, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
            isNegative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var digits = 0
        var decimals = 0
        var hasPoint = false
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                guard !hasPoint else { return nil }
                hasPoint = true
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                digits += 1
                if hasPoint { decimals += 1 }
                if mantissa != 0 || digit != 0 {
                    significantDigits += 1
                    if significantDigits <= 19 { mantissa = mantissa &* 10 &+ UInt64(digit) }
                }
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        // 15 digits are below 2^53, and 10^22 is the largest exact power of ten in a double: the
        // quotient of two exact values is then the correctly rounded result.
        if significantDigits <= 15, decimals <= 22 {
            let value = Double(mantissa) / Self.powersOfTen[decimals]
            return isNegative ? -value : value
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// 10^0 through 10^22, each exact in a double.
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
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

/// The start offsets of a sentence's first ``capacity`` fields, packed eight to a word (a
/// sentence is at most ``NMEASentence/maximumLength`` bytes, so an offset fits in a byte).
private struct FieldStarts: Sendable, Hashable {
    static let capacity = 48
    private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)

    subscript(index: Int) -> Int {
        get { Int(truncatingIfNeeded: word(index / 8) >> UInt64(index % 8 * 8) & 0xFF) }
        set {
            let shift = UInt64(index % 8 * 8)
            let updated = word(index / 8) & ~(0xFF << shift) | UInt64(UInt8(truncatingIfNeeded: newValue)) << shift
            switch index / 8 {
            case 0: words.0 = updated
            case 1: words.1 = updated
            case 2: words.2 = updated
            case 3: words.3 = updated
            case 4: words.4 = updated
            default: words.5 = updated
            }
        }
    }

    private func word(_ number: Int) -> UInt64 {
        switch number {
        case 0: words.0
        case 1: words.1
        case 2: words.2
        case 3: words.3
        case 4: words.4
        default: words.5
        }
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3 && lhs.words.4 == rhs.words.4 && lhs.words.5 == rhs.words.5
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
        hasher.combine(words.4)
        hasher.combine(words.5)
    }
}
