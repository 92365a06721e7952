// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

/// Builds u-blox UBX frames for tests: a moving-base receiver's NAV-RELPOSNED without the receiver.
public enum UBXFrameBuilder {
    /// gnssFixOK, relPosValid, carrSoln fixed and relPosHeadingValid: the flags of a valid heading.
    public static let validHeadingFlags: UInt32 = 1 | 1 << 2 | 2 << 3 | 1 << 8

    /// A frame, sync to checksum (the Fletcher checksum over class to payload).
    /// - Parameters:
    ///   - messageClass: The class.
    ///   - id: The message ID.
    ///   - payload: The payload.
    /// - Returns: The frame's bytes.
    public static func frame(class messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
        let body = [messageClass, id, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)] + payload
        var a: UInt8 = 0, b: UInt8 = 0
        for byte in body {
            a &+= byte
            b &+= a
        }
        return [0xB5, 0x62] + body + [a, b]
    }

    /// A NAV-RELPOSNED frame, field by field from u-blox's ZED-F9P layout.
    /// - Parameters:
    ///   - headingE5: relPosHeading, in 1e-5 degrees.
    ///   - accuracyE5: accHeading, in 1e-5 degrees.
    ///   - flags: The flags word.
    ///   - version: 1 (64 bytes, with a heading) or 0 (the M8P's 40 bytes, without).
    /// - Returns: The frame's bytes.
    public static func relativePosition(headingE5: Int32, accuracyE5: UInt32, flags: UInt32, version: UInt8 = 1) -> [UInt8] {
        var payload = [UInt8](repeating: 0, count: version == 0 ? 40 : 64)
        payload[0] = version
        func put(_ value: UInt32, at offset: Int) {
            for byte in 0..<4 { payload[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(byte))) }
        }
        if version == 1 {
            put(UInt32(bitPattern: headingE5), at: 24)
            put(accuracyE5, at: 52)
            put(flags, at: 60)
        }
        return frame(class: 0x01, id: 0x3C, payload: payload)
    }
}
