// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Reads u-blox UBX-NAV-RELPOSNED (class 0x01, ID 0x3C): the moving-base heading of a u-blox
/// ZED-F9P pair, read straight from the receiver. Pure, no I/O.
///
/// Version 1 (64-byte payload): relPosHeading (offset 24, 1e-5°), accHeading (offset 52, 1e-5°)
/// and flags (offset 60): gnssFixOK (bit 0), relPosValid (bit 2), carrSoln (bits 3–4: 2 fixed),
/// relPosHeadingValid (bit 8). A heading is given only with all four (a fixed carrier solution);
/// anything less is no heading. Version 0 (the M8P's 40 bytes) carries no heading. Layout from
/// u-blox's ZED-F9P interface description (UBX-18010854), as gpsd and pyubx2 read it. The
/// heading is that of the vector from the base antenna to the rover's: the boat's when they lie
/// fore and aft (a source's `offset=` corrects another mounting).
public enum UBXRelativePositionDecoder {
    /// UBX-NAV's class.
    public static let navigationClass: UInt8 = 0x01
    /// RELPOSNED's ID.
    public static let relativePositionID: UInt8 = 0x3C

    /// Decodes a checked frame (class, ID, length and payload).
    /// - Parameter frame: The frame, as ``UBXFrameSplitter`` hands it over.
    /// - Returns: The reading; `nil` for another message, or a RELPOSNED without a valid heading.
    /// - Throws: ``LineDecodingError`` for a RELPOSNED of the wrong length or a heading out of range.
    public static func decode(_ frame: some RandomAccessCollection<UInt8>) throws(LineDecodingError) -> HeadingReading? {
        let bytes = Array(frame)
        guard bytes.count >= 4, bytes[0] == navigationClass, bytes[1] == relativePositionID else { return nil }
        let payload = bytes[4...]
        guard payload.count == Int(bytes[2]) | Int(bytes[3]) << 8 else { throw .malformed("UBX-NAV-RELPOSNED's length field disagrees with its payload") }
        guard let version = payload.first else { throw .malformed("UBX-NAV-RELPOSNED without a payload") }
        if version == 0 { return nil }  // the M8P's form: no heading
        guard payload.count == 64 else {
            throw .malformed("UBX-NAV-RELPOSNED version \(version) of \(payload.count) bytes; version 1 has 64")
        }
        func word(_ offset: Int) -> UInt32 {
            let base = payload.startIndex + offset
            return UInt32(payload[base]) | UInt32(payload[base + 1]) << 8 | UInt32(payload[base + 2]) << 16 | UInt32(payload[base + 3]) << 24
        }
        let flags = word(60)
        let fixOK = flags & 1 != 0
        let relativePositionValid = flags & (1 << 2) != 0
        let carrierFixed = (flags >> 3) & 0b11 == 2
        let headingValid = flags & (1 << 8) != 0
        guard fixOK, relativePositionValid, carrierFixed, headingValid else { return nil }
        let heading = Double(Int32(bitPattern: word(24))) / 100_000
        let accuracy = Double(word(52)) / 100_000
        guard (0...360).contains(heading) else { throw .outOfRange("UBX-NAV-RELPOSNED heading \(heading)° is outside 0–360°") }
        return HeadingReading(trueHeading: heading, accuracy: accuracy <= 180 ? accuracy : nil, kind: .gnssCompass)
    }
}
