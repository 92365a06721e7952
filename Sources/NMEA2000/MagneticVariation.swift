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
        /// The 4-bit code on the bus: 0 manual … 4–9 WMM 2000–2025, 15 for an edition it has none for.
        public var code: UInt8 {
            switch self {
            case .manual: 0
            case .automaticChart: 1
            case .automaticTable: 2
            case .automaticCalculation: 3
            case .worldMagneticModel(let edition): (2000...2025).contains(edition) && edition % 5 == 0 ? UInt8(4 + (edition - 2000) / 5) : 15
            case .other(let code): code & 0x0F
            }
        }

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

    /// A variation to send.
    /// - Parameters:
    ///   - sequence: Ties it to the other messages of the same measurement (0–252; 255 none).
    ///   - source: Where the variation comes from.
    ///   - ageOfService: Days since 1970 of the date it is for.
    ///   - variation: Degrees, east positive.
    public init(sequence: UInt8, source: Source, ageOfService: NMEA2000Field<Int> = .notAvailable, variation: NMEA2000Field<Double>) {
        self.sequence = sequence
        self.source = source
        self.ageOfService = ageOfService
        self.variation = variation
    }

    /// The 8 bytes on the bus (priority 7, broadcast): the source's code with its reserved high
    /// bits ones, the age in days, the variation in 1/10000 radian, two reserved bytes (ones).
    public var payload: [UInt8] {
        var writer = PayloadWriter(capacity: 8)
        writer.byte(sequence)
        writer.byte(0xF0 | source.code)
        let age: NMEA2000Field<Double> = switch ageOfService {
            case .value(let days): .value(Double(days))
            case .notAvailable: .notAvailable
            case .outOfRange: .outOfRange
            case .reserved: .reserved
        }
        writer.unsignedField(age, count: 2, scale: 1)
        writer.signedField(variation, count: 2, scale: tenThousandthRadian)
        writer.unsigned(0xFFFF, count: 2)
        return writer.bytes
    }
}
