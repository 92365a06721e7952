// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 126992, System Time: the bus's date and time (UTC).
public struct SystemTime: Sendable, Hashable {
    /// Ties this message to others of the same fix.
    public var sequence: UInt8
    /// Where the time comes from (0 GPS, 1 GLONASS, 2 radio station, 3 local cesium clock, …).
    public var source: UInt8
    /// Seconds since 1970-01-01 UTC, when both the date and the time are available.
    public var secondsSince1970: Double?

    /// Decodes a message; `nil` for another PGN or a payload shorter than 8 bytes.
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.systemTime, message.payload.count >= 8 else { return nil }
        let reader = PayloadReader(message.payload)
        sequence = message.payload[0]
        source = reader.bits(at: 1, low: 0, width: 4) ?? 15
        let day = reader.unsigned(at: 2, count: 2).map { NMEA2000Field<Int>.unsigned($0, bits: 16) { Int($0) } }?.value
        let time = reader.unsigned(at: 4, count: 4).map { NMEA2000Field<Double>.unsigned($0, bits: 32) { Double($0) * 0.0001 } }?.value
        if let day, let time, time < 86_401 { secondsSince1970 = Double(day) * 86_400 + time } else { secondsSince1970 = nil }
    }
}
