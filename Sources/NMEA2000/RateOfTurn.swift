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
}
