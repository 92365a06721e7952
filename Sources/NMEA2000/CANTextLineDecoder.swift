// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// Reads one line of a CAN recording or a gateway's text (``CANTextFormat``): a frame, or for
/// canboat's CSV a whole message, and its time where the line has one. Pure, bounded and
/// allocation-free per line: a message's bytes go to a buffer allocated once.
public struct CANTextLineDecoder: Sendable {
    /// When a line says it was recorded.
    public enum Time: Sendable, Hashable {
        /// Seconds since 1970-01-01 UTC.
        case date(Double)
        /// Seconds since midnight UTC, the day unknown (YD RAW).
        case timeOfDay(Double)
    }

    /// What a line holds.
    public enum Content: Sendable, Hashable {
        /// A CAN frame.
        case frame(CANFrame)
        /// A whole message (canboat's CSV): its bytes are in ``withPayload(_:)``.
        case message(priority: UInt8, pgn: UInt32, source: UInt8, destination: UInt8, length: Int)
    }

    /// Why a line is not a frame.
    public struct LineError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong with it.
        public let reason: String
        /// What is wrong with it.
        public var description: String { reason }
    }

    /// The most bytes one canboat line may carry (a fast packet holds 223; ISO transport more).
    public static let maximumMessageLength = 1785

    private var payload: [UInt8]
    private var payloadCount = 0

    /// Creates a decoder.
    public init() {
        payload = Array(repeating: 0, count: Self.maximumMessageLength)
    }

    /// Calls `body` with the bytes of the last ``Content/message(priority:pgn:source:destination:length:)``.
    public func withPayload<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try payload.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<payloadCount])) }
    }

    /// Decodes a line in a known form (leading spaces removed, no line end).
    /// - Returns: The content, and its time where the line has one.
    /// - Throws: ``LineError`` for a line that is not a frame of that form.
    public mutating func decode(
        _ line: UnsafeBufferPointer<UInt8>, format: CANTextFormat
    ) throws(LineError) -> (content: Content, time: Time?) {
        var cursor = Cursor(line)
        switch format {
        case .candumpLog:
            let time = try cursor.parenthesizedSeconds()
            cursor.skipSpaces()
            _ = cursor.word()  // the interface
            cursor.skipSpaces()
            let id = try cursor.hex(maximumDigits: 8, what: "identifier")
            guard cursor.take(UInt8(ascii: "#")) else { throw LineError(reason: "a candump -L line is (TIME) IFACE ID#DATA") }
            var bytes: UInt64 = 0
            var count = 0
            while let byte = cursor.hexByte() {
                guard count < 8 else { throw LineError(reason: "a CAN frame has at most 8 data bytes") }
                bytes |= UInt64(byte) << (8 * UInt64(count))
                count += 1
            }
            try cursor.requireEnd()
            return (.frame(CANFrame(identifier: CANIdentifier(id), count: count, data: bytes)), time)
        case .candump:
            var time: Time?
            if cursor.peek == UInt8(ascii: "(") {
                time = try cursor.parenthesizedSeconds()
                cursor.skipSpaces()
            }
            let id: UInt32
            if cursor.take(UInt8(ascii: "<")) {
                guard cursor.take(UInt8(ascii: "0")), cursor.take(UInt8(ascii: "x")) else { throw LineError(reason: "expected <0xIDENTIFIER>") }
                id = try cursor.hex(maximumDigits: 8, what: "identifier")
                guard cursor.take(UInt8(ascii: ">")) else { throw LineError(reason: "expected > after the identifier") }
            } else {
                _ = cursor.word()
                cursor.skipSpaces()
                id = try cursor.hex(maximumDigits: 8, what: "identifier")
            }
            cursor.skipSpaces()
            guard cursor.take(UInt8(ascii: "[")), let length = cursor.peek, (UInt8(ascii: "0")...UInt8(ascii: "8")).contains(length) else {
                throw LineError(reason: "expected [LENGTH] (0 to 8) after the identifier")
            }
            cursor.advance()
            guard cursor.take(UInt8(ascii: "]")) else { throw LineError(reason: "expected ] after the length") }
            let (bytes, count) = try cursor.spacedBytes(maximum: 8)
            guard count == Int(length - UInt8(ascii: "0")) else { throw LineError(reason: "[\(length - 48)] but \(count) data bytes") }
            return (.frame(CANFrame(identifier: CANIdentifier(id), count: count, data: bytes)), time)
        case .yachtDevicesRaw:
            let seconds = try cursor.timeOfDay()
            cursor.skipSpaces()
            guard cursor.take(UInt8(ascii: "R")) || cursor.take(UInt8(ascii: "T")) else {
                throw LineError(reason: "a YD RAW line is HH:MM:SS.mmm R|T ID BYTES")
            }
            cursor.skipSpaces()
            let id = try cursor.hex(maximumDigits: 8, what: "identifier")
            let (bytes, count) = try cursor.spacedBytes(maximum: 8)
            return (.frame(CANFrame(identifier: CANIdentifier(id), count: count, data: bytes)), .timeOfDay(seconds))
        case .canboat:
            let date = try cursor.dateAndTime()
            guard cursor.take(UInt8(ascii: ",")) else { throw LineError(reason: "expected , after the time") }
            let priority = try cursor.decimal(maximum: 7, what: "priority")
            let pgn = try cursor.decimal(maximum: 0xFF_FFFF, what: "PGN")  // over 0x3FFFF: a gateway's own (Actisense BEM)
            let source = try cursor.decimal(maximum: 255, what: "source")
            let destination = try cursor.decimal(maximum: 255, what: "destination")
            let length = try cursor.decimal(maximum: UInt32(Self.maximumMessageLength), what: "length")
            var count = 0
            while !cursor.isAtEnd {
                guard count < Int(length), let byte = cursor.hexByte() else {
                    throw LineError(reason: "expected \(length) data bytes as hex, separated by commas")
                }
                payload[count] = byte
                count += 1
                if !cursor.isAtEnd, !cursor.take(UInt8(ascii: ",")) { throw LineError(reason: "data bytes are separated by commas") }
            }
            guard count == Int(length) else { throw LineError(reason: "length \(length) but \(count) data bytes") }
            payloadCount = count
            return (
                .message(priority: UInt8(priority), pgn: pgn, source: UInt8(source), destination: UInt8(destination), length: count),
                date.map { .date($0) }
            )
        }
    }
}

/// A position in a line, with the readers the formats need; never reads past the end.
private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func advance() { index += 1 }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    mutating func skipSpaces() {
        while let byte = peek, byte == 0x20 || byte == 0x09 { index += 1 }
    }

    mutating func word() -> Int {
        let start = index
        while let byte = peek, byte != 0x20, byte != 0x09 { index += 1 }
        return index - start
    }

    mutating func requireEnd() throws(CANTextLineDecoder.LineError) {
        skipSpaces()
        guard isAtEnd else { throw CANTextLineDecoder.LineError(reason: "unexpected text after the frame") }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    mutating func hex(maximumDigits: Int, what: String) throws(CANTextLineDecoder.LineError) -> UInt32 {
        var value: UInt32 = 0
        var digits = 0
        while let byte = peek, let digit = Self.hexValue(byte) {
            guard digits < maximumDigits else { throw CANTextLineDecoder.LineError(reason: "the \(what) has more than \(maximumDigits) hex digits") }
            value = value << 4 | UInt32(digit)
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw CANTextLineDecoder.LineError(reason: "expected the \(what) in hex") }
        return value
    }

    /// Two hex digits, or `nil` (nothing consumed) when there are not two.
    mutating func hexByte() -> UInt8? {
        guard index + 1 < bytes.count, let high = Self.hexValue(bytes[index]), let low = Self.hexValue(bytes[index + 1]) else { return nil }
        index += 2
        return high << 4 | low
    }

    /// Bytes as hex pairs separated by spaces, up to `maximum`, to the end of the line.
    mutating func spacedBytes(maximum: Int) throws(CANTextLineDecoder.LineError) -> (UInt64, Int) {
        var value: UInt64 = 0
        var count = 0
        skipSpaces()
        while !isAtEnd {
            guard let byte = hexByte() else { throw CANTextLineDecoder.LineError(reason: "expected data bytes as pairs of hex digits") }
            guard count < maximum else { throw CANTextLineDecoder.LineError(reason: "a CAN frame has at most \(maximum) data bytes") }
            value |= UInt64(byte) << (8 * UInt64(count))
            count += 1
            guard isAtEnd || peek == 0x20 || peek == 0x09 else { throw CANTextLineDecoder.LineError(reason: "data bytes are separated by spaces") }
            skipSpaces()
        }
        return (value, count)
    }

    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for offset in 0..<count {
            let byte = bytes[index + offset]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// `.digits` after a whole number: the fraction's value.
    mutating func fraction() -> Double {
        guard take(UInt8(ascii: ".")) else { return 0 }
        var value = 0.0
        var scale = 0.1
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            if scale > 1e-12 { value += Double(byte - UInt8(ascii: "0")) * scale }
            scale /= 10
            index += 1
        }
        return value
    }

    mutating func decimal(maximum: UInt32, what: String) throws(CANTextLineDecoder.LineError) -> UInt32 {
        var value: UInt32 = 0
        var count = 0
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            value = value &* 10 &+ UInt32(byte - UInt8(ascii: "0"))
            count += 1
            index += 1
            guard count <= 10, value <= maximum else { throw CANTextLineDecoder.LineError(reason: "the \(what) is over \(maximum)") }
        }
        guard count > 0 else { throw CANTextLineDecoder.LineError(reason: "expected the \(what) as a number") }
        _ = take(UInt8(ascii: ","))
        return value
    }

    /// `(SECONDS.FRACTION)`.
    mutating func parenthesizedSeconds() throws(CANTextLineDecoder.LineError) -> CANTextLineDecoder.Time {
        guard take(UInt8(ascii: "(")) else { throw CANTextLineDecoder.LineError(reason: "expected (SECONDS.MICROSECONDS)") }
        var whole = 0.0
        var count = 0
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            guard count < 12 else { throw CANTextLineDecoder.LineError(reason: "the time has too many digits") }
            whole = whole * 10 + Double(byte - UInt8(ascii: "0"))
            count += 1
            index += 1
        }
        let seconds = whole + fraction()
        guard count > 0, take(UInt8(ascii: ")")) else { throw CANTextLineDecoder.LineError(reason: "expected (SECONDS.MICROSECONDS)") }
        return .date(seconds)
    }

    /// `HH:MM:SS.fff`.
    mutating func timeOfDay() throws(CANTextLineDecoder.LineError) -> Double {
        guard let hours = digits(2), hours < 24, take(UInt8(ascii: ":")), let minutes = digits(2), minutes < 60,
            take(UInt8(ascii: ":")), let seconds = digits(2), seconds < 61
        else { throw CANTextLineDecoder.LineError(reason: "expected the time of day as HH:MM:SS.mmm") }
        return Double(hours * 3600 + minutes * 60 + seconds) + fraction()
    }

    /// `YYYY-MM-DDTHH:MM:SS.fffZ` or `YYYY-MM-DD-HH:MM:SS.fff` (UTC); `nil` for a date out of range.
    mutating func dateAndTime() throws(CANTextLineDecoder.LineError) -> Double? {
        guard let year = digits(4), take(UInt8(ascii: "-")), let month = digits(2), take(UInt8(ascii: "-")), let day = digits(2),
            take(UInt8(ascii: "T")) || take(UInt8(ascii: "-")) || take(UInt8(ascii: " "))
        else { throw CANTextLineDecoder.LineError(reason: "expected the time as YYYY-MM-DDTHH:MM:SS.fffZ") }
        let seconds = try timeOfDay()
        _ = take(UInt8(ascii: "Z"))
        guard (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        return Double(Self.daysSince1970(year: year, month: month, day: day)) * 86_400 + seconds
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
