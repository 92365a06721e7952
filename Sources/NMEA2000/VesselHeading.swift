// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 127250, Vessel Heading: what a compass, a GNSS compass or an IMU sends, ten times a second.
public struct VesselHeading: Sendable, Hashable {
    /// What the heading is measured against.
    public enum Reference: UInt8, Sendable, Hashable {
        /// True north.
        case `true` = 0
        /// Magnetic north: a compass's own reading, before deviation and variation.
        case magnetic = 1
        /// The sender says its reference is in error.
        case error = 2
        /// The sender does not say (all ones). HeadingKit reads such a heading as magnetic: a
        /// compass that does not know better measures magnetic north.
        case notAvailable = 3
    }

    /// Ties this message to others of the same measurement.
    public var sequence: UInt8
    /// The heading, in degrees from 0 up to 360.
    public var heading: NMEA2000Field<Double>
    /// The compass's deviation, in degrees (east positive).
    public var deviation: NMEA2000Field<Double>
    /// The magnetic variation, in degrees (east positive).
    public var variation: NMEA2000Field<Double>
    /// What the heading is measured against.
    public var reference: Reference

    /// Decodes a message; `nil` for another PGN or a payload shorter than 8 bytes.
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.vesselHeading, message.payload.count >= 8 else { return nil }
        let reader = PayloadReader(message.payload)
        sequence = message.payload[0]
        heading = reader.angleField(at: 1)
        deviation = reader.signedField(at: 3, count: 2, scale: tenThousandthRadian)
        variation = reader.signedField(at: 5, count: 2, scale: tenThousandthRadian)
        reference = Reference(rawValue: reader.bits(at: 7, low: 0, width: 2) ?? 3) ?? .notAvailable
    }

    /// A heading to send.
    /// - Parameters:
    ///   - sequence: Ties it to the other messages of the same measurement (0–252; 255 none).
    ///   - heading: Degrees in `[0, 360)`.
    ///   - deviation: The compass's deviation in degrees, east positive.
    ///   - variation: The magnetic variation in degrees, east positive.
    ///   - reference: What the heading is measured against.
    public init(
        sequence: UInt8, heading: NMEA2000Field<Double>, deviation: NMEA2000Field<Double> = .notAvailable,
        variation: NMEA2000Field<Double> = .notAvailable, reference: Reference
    ) {
        self.sequence = sequence
        self.heading = heading
        self.deviation = deviation
        self.variation = variation
        self.reference = reference
    }

    /// The 8 bytes on the bus (priority 2, broadcast): angles rounded to 1/10000 radian, the
    /// reserved bits of the last byte ones (as the NMEA2000 library writes them).
    public var payload: [UInt8] {
        var writer = PayloadWriter(capacity: 8)
        writer.byte(sequence)
        writer.angleField(heading)
        writer.signedField(deviation, count: 2, scale: tenThousandthRadian)
        writer.signedField(variation, count: 2, scale: tenThousandthRadian)
        writer.byte(0xFC | reference.rawValue)
        return writer.bytes
    }
}
