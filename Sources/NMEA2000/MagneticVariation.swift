// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 127258, Magnetic Variation, with where it comes from. Many devices send it in 6 bytes,
/// without the two reserved ones at the end: both forms are read.
public struct MagneticVariation: Sendable, Hashable {
    /// Where the variation comes from.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// Entered by hand.
        case manual
        /// From the chart.
        case automaticChart
        /// From a table.
        case automaticTable
        /// Calculated by the device, by a method it does not name.
        case automaticCalculation
        /// The World Magnetic Model of this edition: 2000, 2005, 2010, 2015, 2020 or 2025.
        case worldMagneticModel(edition: Int)
        /// A code canboat's database does not name.
        case other(UInt8)

        init(_ code: UInt8) {
            switch code {
            case 0: self = .manual
            case 1: self = .automaticChart
            case 2: self = .automaticTable
            case 3: self = .automaticCalculation
            case 4...9: self = .worldMagneticModel(edition: 2000 + 5 * Int(code - 4))
            default: self = .other(code)
            }
        }

        /// `manual`, `chart`, `table`, `calculation`, `WMM 2020` or `source 12`.
        public var description: String {
            switch self {
            case .manual: "manual"
            case .automaticChart: "chart"
            case .automaticTable: "table"
            case .automaticCalculation: "calculation"
            case .worldMagneticModel(let edition): "WMM \(edition)"
            case .other(let code): "source \(code)"
            }
        }
    }

    /// Ties this message to others of the same measurement.
    public var sequence: UInt8
    /// Where the variation comes from.
    public var source: Source
    /// The day the variation's source was made, in days since 1970-01-01.
    public var ageOfService: NMEA2000Field<Int>
    /// The variation, in degrees (east positive).
    public var variation: NMEA2000Field<Double>

    /// Decodes a message; `nil` for another PGN or a payload shorter than 6 bytes.
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.magneticVariation, message.payload.count >= 6 else { return nil }
        let reader = PayloadReader(message.payload)
        sequence = message.payload[0]
        source = Source(reader.bits(at: 1, low: 0, width: 4) ?? 15)
        ageOfService = reader.unsigned(at: 2, count: 2).map { .unsigned($0, bits: 16) { Int($0) } } ?? .notAvailable
        variation = reader.signedField(at: 4, count: 2, scale: tenThousandthRadian)
    }
}
