// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Reads Unicore's `#UNIHEADINGA` log (UM982, UM980 and other dual-antenna receivers), an ASCII
/// log in NovAtel's framing, not NMEA 0183: `#UNIHEADINGA,HEADER…;BODY…*CRC32`. Pure, no I/O.
///
/// The body, in order: solution status, position type, baseline length (m), heading (degrees),
/// pitch (degrees), a reserved field, heading and pitch standard deviations (degrees), station ID,
/// then satellite counts and signal masks (not read). Only a `SOL_COMPUTED` solution gives a
/// heading; any other status is no heading. The eight hexadecimal digits after `*` are a CRC-32
/// (the reflected polynomial 0xEDB88320, starting at 0, no final inversion, as NovAtel defines it)
/// over every byte between `#` and `*`.
///
/// Field order from Unicore's UM982 reference commands manual (UNIHEADING) and NovAtel's OEM7
/// HEADING log, whose layout it copies, as third-party decoders read it; no recording of a real
/// receiver was available here.
public enum UnicoreHeadingDecoder {
    /// The log's name, as it starts a line.
    public static let logName = Array("#UNIHEADINGA".utf8)

    /// Whether a line is a `#UNIHEADINGA` log (and not a comment).
    /// - Parameter line: The line.
    public static func isHeadingLog(_ line: some Collection<UInt8>) -> Bool {
        line.starts(with: logName) && line.dropFirst(logName.count).first.map { $0 == 0x2C || $0 == 0x3B } == true
    }

    /// Decodes one `#UNIHEADINGA` line.
    /// - Parameter line: The line, without its line end.
    /// - Returns: The reading, or `nil` when the receiver has no heading (a solution not computed,
    ///   an empty heading).
    /// - Throws: ``LineDecodingError`` for a wrong CRC, a missing field, or a value out of range.
    public static func decode(_ line: some Collection<UInt8>) throws(LineDecodingError) -> HeadingReading? {
        let bytes = Array(line.prefix(NMEASentence.maximumLength * 3 + 1))
        guard bytes.count <= NMEASentence.maximumLength * 3 else { throw .malformed("Unicore log longer than \(NMEASentence.maximumLength * 3) bytes") }
        guard isHeadingLog(bytes) else { throw .malformed("not a #UNIHEADINGA log") }
        if let bad = bytes.first(where: { $0 < 0x20 || $0 > 0x7E }) {
            throw .malformed("binary data in Unicore log (byte 0x\(String(bad, radix: 16, uppercase: true)))")
        }
        guard let star = bytes.lastIndex(of: UInt8(ascii: "*")) else { throw .malformed("Unicore log has no CRC (*XXXXXXXX)") }
        let digits = bytes[(star + 1)...]
        guard digits.count == 8, let expected = UInt32(String(decoding: digits, as: UTF8.self), radix: 16) else {
            throw .malformed("Unicore log's CRC '\(String(decoding: digits.prefix(12), as: UTF8.self))' is not eight hexadecimal digits")
        }
        let actual = crc32(bytes[1..<star])
        guard actual == expected else {
            throw .malformed("Unicore log's CRC mismatch: log says \(hex(expected)), content gives \(hex(actual))")
        }
        guard let semicolon = bytes[..<star].firstIndex(of: UInt8(ascii: ";")) else {
            throw .malformed("Unicore log has no ';' between its header and its body")
        }
        let fields = bytes[(semicolon + 1)..<star].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard fields.count >= 8 else {
            throw .malformed("UNIHEADINGA body has \(fields.count) fields; at least 8 are read (status, type, length, heading, pitch, reserved, two deviations): cut short?")
        }
        guard fields[0] == "SOL_COMPUTED" else { return nil }
        func number(_ index: Int, _ name: String, _ range: ClosedRange<Double>) throws(LineDecodingError) -> Double? {
            let text = fields[index]
            guard !text.isEmpty else { return nil }
            guard text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B }),
                let value = Double(text), value.isFinite
            else { throw .malformed("UNIHEADINGA field \(index + 1) (\(name)) is '\(text.prefix(20))'; expected a number") }
            guard range.contains(value) else { throw .outOfRange("UNIHEADINGA \(name) \(text.prefix(20)) is outside \(range.lowerBound)…\(range.upperBound)") }
            return value
        }
        _ = try number(2, "baseline length", 0...10_000)
        guard let heading = try number(3, "heading", 0...360) else { return nil }
        return HeadingReading(
            trueHeading: heading,
            accuracy: try number(6, "heading standard deviation", 0...180),
            pitch: try number(4, "pitch", -90...90),
            kind: .gnssCompass
        )
    }

    /// NovAtel's CRC-32 (as Unicore uses it): reflected polynomial 0xEDB88320, initial value 0, no
    /// final inversion.
    /// - Parameter bytes: The bytes.
    /// - Returns: The CRC.
    public static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
