// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 127257, Attitude: yaw, pitch and roll, from an IMU or a GNSS compass.
public struct Attitude: Sendable, Hashable {
    /// Ties this message to others of the same measurement.
    public var sequence: UInt8
    /// Yaw, in degrees.
    public var yaw: NMEA2000Field<Double>
    /// Pitch, in degrees (bow up positive).
    public var pitch: NMEA2000Field<Double>
    /// Roll, in degrees (starboard down positive).
    public var roll: NMEA2000Field<Double>

    /// Decodes a message; `nil` for another PGN or a payload shorter than 7 bytes.
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.attitude, message.payload.count >= 7 else { return nil }
        let reader = PayloadReader(message.payload)
        sequence = message.payload[0]
        yaw = reader.signedField(at: 1, count: 2, scale: tenThousandthRadian)
        pitch = reader.signedField(at: 3, count: 2, scale: tenThousandthRadian)
        roll = reader.signedField(at: 5, count: 2, scale: tenThousandthRadian)
    }
}
