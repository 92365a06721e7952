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

    /// An attitude to send.
    /// - Parameters:
    ///   - sequence: Ties it to the other messages of the same measurement (0–252; 255 none).
    ///   - yaw: Degrees.
    ///   - pitch: Degrees, bow up positive.
    ///   - roll: Degrees, starboard down positive.
    public init(sequence: UInt8, yaw: NMEA2000Field<Double>, pitch: NMEA2000Field<Double>, roll: NMEA2000Field<Double>) {
        self.sequence = sequence
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }

    /// The 8 bytes on the bus (priority 3, broadcast): angles in 1/10000 radian, the last byte reserved (ones).
    public var payload: [UInt8] {
        var writer = PayloadWriter(capacity: 8)
        writer.byte(sequence)
        writer.signedField(yaw, count: 2, scale: tenThousandthRadian)
        writer.signedField(pitch, count: 2, scale: tenThousandthRadian)
        writer.signedField(roll, count: 2, scale: tenThousandthRadian)
        writer.byte(0xFF)
        return writer.bytes
    }
}
