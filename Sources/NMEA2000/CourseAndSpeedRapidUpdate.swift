// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 129026, COG & SOG, Rapid Update: a GNSS receiver's course and speed over ground.
public struct CourseAndSpeedRapidUpdate: Sendable, Hashable {
    /// Ties this message to others of the same fix.
    public var sequence: UInt8
    /// What the course is measured against (true or magnetic).
    public var reference: VesselHeading.Reference
    /// The course over ground, in degrees.
    public var course: NMEA2000Field<Double>
    /// The speed over ground, in metres per second.
    public var speed: NMEA2000Field<Double>

    /// Decodes a message; `nil` for another PGN or a payload shorter than 6 bytes.
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.courseAndSpeedRapidUpdate, message.payload.count >= 6 else { return nil }
        let reader = PayloadReader(message.payload)
        sequence = message.payload[0]
        reference = VesselHeading.Reference(rawValue: reader.bits(at: 1, low: 0, width: 2) ?? 3) ?? .notAvailable
        course = reader.angleField(at: 2)
        speed = reader.unsignedField(at: 4, count: 2, scale: 0.01)
    }
}
