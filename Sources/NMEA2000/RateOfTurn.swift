// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 127251, Rate of Turn.
public struct RateOfTurn: Sendable, Hashable {
    /// Ties this message to others of the same measurement.
    public var sequence: UInt8
    /// The rate, in degrees per second (positive turning to starboard).
    public var rate: NMEA2000Field<Double>

    /// Decodes a message; `nil` for another PGN or a payload shorter than 5 bytes.
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.rateOfTurn, message.payload.count >= 5 else { return nil }
        sequence = message.payload[0]
        rate = PayloadReader(message.payload).signedField(at: 1, count: 4, scale: 3.125e-8 * 180 / Double.pi)
    }

    /// A rate of turn to send.
    /// - Parameters:
    ///   - sequence: Ties it to the other messages of the same measurement (0–252; 255 none).
    ///   - rate: Degrees per second, positive to starboard.
    public init(sequence: UInt8, rate: NMEA2000Field<Double>) {
        self.sequence = sequence
        self.rate = rate
    }

    /// The 8 bytes on the bus (priority 2, broadcast): the rate in 3.125 × 10⁻⁸ rad/s, the three
    /// reserved bytes ones.
    public var payload: [UInt8] {
        var writer = PayloadWriter(capacity: 8)
        writer.byte(sequence)
        writer.signedField(rate, count: 4, scale: 3.125e-8 * 180 / Double.pi)
        writer.unsigned(0xFF_FFFF, count: 3)
        return writer.bytes
    }
}
