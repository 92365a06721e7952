// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 129025, Position, Rapid Update.
public struct PositionRapidUpdate: Sendable, Hashable {
    /// Latitude, in degrees (north positive).
    public var latitude: NMEA2000Field<Double>
    /// Longitude, in degrees (east positive).
    public var longitude: NMEA2000Field<Double>

    /// Decodes a message; `nil` for another PGN or a payload shorter than 8 bytes.
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.positionRapidUpdate, message.payload.count >= 8 else { return nil }
        let reader = PayloadReader(message.payload)
        latitude = reader.signedField(at: 0, count: 4, scale: 1e-7)
        longitude = reader.signedField(at: 4, count: 4, scale: 1e-7)
    }
}
