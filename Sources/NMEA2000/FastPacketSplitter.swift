// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// Splits a fast-packet message (126464, 126996, 126998: up to 223 bytes) into the CAN frames
/// that carry it, as ``FastPacketAssembler`` joins them: a first frame with the series' sequence
/// number, frame counter 0, the length and 6 bytes; then frames of the counter and 7 bytes. Every
/// frame is 8 bytes long: the last one is padded with 0xFF (as the NMEA2000 library sends it,
/// which some receivers need).
public enum FastPacketSplitter {
    /// The frames' data, in order.
    /// - Parameters:
    ///   - payload: The message, at most ``FastPacketAssembler/maximumLength`` bytes.
    ///   - sequence: The series' sequence number (3 bits, masked): a sender counts it up for each
    ///     series of one PGN, so that a receiver tells a new series from a repeated frame.
    /// - Returns: The frames' 8 bytes each; `nil` for a payload longer than 223 bytes.
    public static func frames(of payload: [UInt8], sequence: UInt8) -> [[UInt8]]? {
        guard payload.count <= FastPacketAssembler.maximumLength else { return nil }
        let high = (sequence & 0x07) << 5
        var frames: [[UInt8]] = []
        frames.reserveCapacity(1 + (max(0, payload.count - 6) + 6) / 7)
        var first: [UInt8] = [high, UInt8(payload.count)]
        first += payload.prefix(6)
        frames.append(padded(first))
        var offset = 6
        var counter: UInt8 = 1
        while offset < payload.count {
            var frame: [UInt8] = [high | counter]
            frame += payload[offset..<min(payload.count, offset + 7)]
            frames.append(padded(frame))
            offset += 7
            counter += 1
        }
        return frames
    }

    private static func padded(_ frame: [UInt8]) -> [UInt8] {
        frame + repeatElement(0xFF, count: 8 - frame.count)
    }
}
