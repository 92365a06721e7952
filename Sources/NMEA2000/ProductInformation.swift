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

    /// Product information to send.
    /// - Parameters:
    ///   - databaseVersion: The NMEA 2000 database version followed, such as 2.1.
    ///   - productCode: The maker's product code.
    ///   - model: The model (up to 32 ASCII characters).
    ///   - softwareVersion: The software version.
    ///   - modelVersion: The model version.
    ///   - serialCode: The unit's serial code.
    public init(
        databaseVersion: Double?, productCode: Int?, model: String?, softwareVersion: String?, modelVersion: String?, serialCode: String?
    ) {
        self.databaseVersion = databaseVersion
        self.productCode = productCode
        self.model = model
        self.softwareVersion = softwareVersion
        self.modelVersion = modelVersion
        self.serialCode = serialCode
    }

    /// The 134 bytes on the bus (a fast packet, priority 6): the four texts 32 bytes each, cut
    /// there and padded with 0xFF; certification level 0 and a load of one LEN (50 mA) — no
    /// certification claimed, and the least a powered node can say.
    public var payload: [UInt8] {
        var writer = PayloadWriter(capacity: 134)
        writer.unsignedField(databaseVersion.map { .value($0) } ?? .notAvailable, count: 2, scale: 0.001)
        writer.unsignedField(productCode.map { .value(Double($0)) } ?? .notAvailable, count: 2, scale: 1)
        writer.text(model ?? "", count: 32)
        writer.text(softwareVersion ?? "", count: 32)
        writer.text(modelVersion ?? "", count: 32)
        writer.text(serialCode ?? "", count: 32)
        writer.byte(0)  // certification level
        writer.byte(1)  // load equivalency, in 50 mA
        return writer.bytes
    }
}
