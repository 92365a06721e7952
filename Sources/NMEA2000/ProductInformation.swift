// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 126996, Product Information: what a device is (a fast packet of 134 bytes).
public struct ProductInformation: Sendable, Hashable {
    /// The NMEA 2000 database version the device follows, such as 2.1.
    public var databaseVersion: Double?
    /// The manufacturer's product code.
    public var productCode: Int?
    /// The model, such as `GPS 19x NMEA 2000`.
    public var model: String?
    /// The software version.
    public var softwareVersion: String?
    /// The model version.
    public var modelVersion: String?
    /// The device's serial code.
    public var serialCode: String?

    /// Decodes a message; `nil` for another PGN or a payload shorter than 36 bytes (up to the
    /// model's name).
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.productInformation, message.payload.count >= 36 else { return nil }
        let reader = PayloadReader(message.payload)
        databaseVersion = reader.unsigned(at: 0, count: 2).flatMap { NMEA2000Field<Double>.unsigned($0, bits: 16) { Double($0) * 0.001 }.value }
        productCode = reader.unsigned(at: 2, count: 2).flatMap { NMEA2000Field<Int>.unsigned($0, bits: 16) { Int($0) }.value }
        model = reader.text(at: 4, count: 32)
        softwareVersion = reader.text(at: 36, count: 32)
        modelVersion = reader.text(at: 68, count: 32)
        serialCode = reader.text(at: 100, count: 32)
    }
}
