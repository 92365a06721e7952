// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

public import HeadingKit

/// Turns headings into NMEA 0183 sentences: `HDT`, `HDM`, `HDG`, `THS` and `ROT`, each with its
/// checksum and `\r\n`, never over 82 characters. Pure: no clock, no sockets, no state.
///
/// Only what is known is written: a sentence whose heading is unknown is not written at all
/// (``encode(_:heading:mode:)`` returns `nil`), except `THS` with mode `V`, which says "no heading"
/// with an empty field; `HDG` leaves its deviation and variation fields empty when unknown.
/// Angles are rounded to ``decimals`` places; a heading that rounds to 360 is written as 0.
public struct NMEA0183Encoder: Sendable, Hashable {
    /// The sentence types the encoder writes.
    public enum Sentence: String, Sendable, Hashable, CaseIterable, Codable {
        /// True heading.
        case hdt = "HDT"
        /// Magnetic heading.
        case hdm = "HDM"
        /// Magnetic sensor heading, with deviation and variation where known.
        case hdg = "HDG"
        /// True heading with a mode (``NMEA0183Encoder/Mode``).
        case ths = "THS"
        /// Rate of turn, degrees per minute, negative to port.
        case rot = "ROT"
    }

    /// The mode letter of a `THS` sentence.
    public enum Mode: Character, Sendable, Hashable {
        /// Autonomous: a healthy live source measured it.
        case autonomous = "A"
        /// Estimated: derived (true from magnetic with the model's variation, or course over ground).
        case estimated = "E"
        /// Simulator: from the simulation or a replay.
        case simulator = "S"
        /// Not valid: no source is healthy; the heading field is empty.
        case invalid = "V"
    }

    /// The two-letter talker: `II`, integrated instrumentation, by default — headingd's heading is
    /// chosen and corrected from one or more sensors, so it names no single device (a `HE` gyro,
    /// an `HC` compass, a `GP` receiver).
    public let talker: String
    /// Decimal places of every angle and rate: 1 by default (0.1°, finer than any heading sensor
    /// headingd reads states in its sentences).
    public let decimals: Int

    /// Creates an encoder.
    /// - Parameters:
    ///   - talker: Two uppercase letters or digits. Default `II`.
    ///   - decimals: Decimal places, 0 to 3. Default 1.
    /// - Returns: `nil` when the talker or the places are out of range.
    public init?(talker: String = "II", decimals: Int = 1) {
        guard talker.utf8.count == 2, talker.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }),
            (0...3).contains(decimals)
        else { return nil }
        self.talker = talker
        self.decimals = decimals
    }

    /// The `THS` mode for a heading from a source: simulator for the simulation and replays,
    /// estimated when the true heading was derived, autonomous otherwise.
    /// - Parameter heading: The heading to be sent.
    /// - Returns: The mode letter's case.
    public static func mode(of heading: Heading) -> Mode {
        if heading.kind == .simulated || heading.source.hasPrefix("replay:") { return .simulator }
        if heading.kind == .courseOverGround || heading.variationOrigin == .model { return .estimated }
        return .autonomous
    }

    /// One sentence for `heading`, or `nil` when it lacks what the type needs.
    /// - Parameters:
    ///   - sentence: The type to write (not ``Sentence/rot``: see ``rateOfTurn(_:)``).
    ///   - heading: The heading; `nil` means no healthy source (only `THS` writes that, mode `V`).
    ///   - mode: `THS`'s mode; default ``mode(of:)``, and ``Mode/invalid`` without a heading.
    /// - Returns: The sentence's bytes, `$` to `\r\n`.
    public func encode(_ sentence: Sentence, heading: Heading?, mode: Mode? = nil) -> [UInt8]? {
        var body = talker + sentence.rawValue
        switch sentence {
        case .hdt:
            guard let value = heading?.trueHeading else { return nil }
            body += "," + angle(value) + ",T"
        case .hdm:
            guard let value = heading?.magneticHeading else { return nil }
            body += "," + angle(value) + ",M"
        case .hdg:
            guard let heading, let magnetic = heading.magneticHeading else { return nil }
            // The sensor's reading: magnetic = sensor + deviation.
            body += "," + angle(magnetic - (heading.deviation ?? 0))
            body += "," + signed(heading.deviation)
            body += "," + signed(heading.variationOrigin == HeadingKit.Heading.VariationOrigin.none ? nil : heading.magneticVariation)
        case .ths:
            guard let heading, let value = heading.trueHeading, mode != .invalid else {
                body += ",,V"
                break
            }
            body += "," + angle(value) + "," + String((mode ?? Self.mode(of: heading)).rawValue)
        case .rot:
            return nil
        }
        return frame(body)
    }

    /// A `ROT` sentence: the rate of turn in degrees per minute, negative to port, status `A`.
    /// - Parameter degreesPerMinute: The rate; not finite gives `nil`.
    /// - Returns: The sentence's bytes, `$` to `\r\n`.
    public func rateOfTurn(_ degreesPerMinute: Double) -> [UInt8]? {
        guard degreesPerMinute.isFinite, abs(degreesPerMinute) < 100_000 else { return nil }
        return frame(talker + "ROT," + fixed(degreesPerMinute) + ",A")
    }

    /// `$`, the body, `*`, the checksum in two hex digits, `\r\n`; `nil` over 82 characters.
    private func frame(_ body: String) -> [UInt8]? {
        var bytes: [UInt8] = [0x24]
        bytes.reserveCapacity(body.utf8.count + 6)
        var checksum: UInt8 = 0
        for byte in body.utf8 {
            checksum ^= byte
            bytes.append(byte)
        }
        let hex = Array("0123456789ABCDEF".utf8)
        bytes += [0x2A, hex[Int(checksum >> 4)], hex[Int(checksum & 0x0F)], 0x0D, 0x0A]
        return bytes.count <= 82 ? bytes : nil
    }

    /// A heading angle in `[0, 360)` at ``decimals`` places: one that rounds to 360 is 0.
    private func angle(_ degrees: Double) -> String {
        let scale = Self.scales[decimals]
        var units = Int((Degrees.normalized(degrees) ?? 0) * Double(scale) + 0.5)
        if units >= 360 * scale { units -= 360 * scale }
        return digits(units, scale: scale)
    }

    /// A signed angle as `magnitude,E` or `magnitude,W` (East positive); two empty fields when unknown.
    private func signed(_ degrees: Double?) -> String {
        guard let degrees, degrees.isFinite, abs(degrees) <= 180 else { return "," }
        let scale = Self.scales[decimals]
        let units = Int(abs(degrees) * Double(scale) + 0.5)
        // A value that rounds to zero is East: never "0.0,W".
        return digits(units, scale: scale) + (units == 0 || degrees >= 0 ? ",E" : ",W")
    }

    /// A signed number at ``decimals`` places: `-12.5`.
    private func fixed(_ value: Double) -> String {
        let scale = Self.scales[decimals]
        let units = Int(abs(value) * Double(scale) + 0.5)
        return (value < 0 && units != 0 ? "-" : "") + digits(units, scale: scale)
    }

    /// `units / scale` written with its decimals: `digits(3275, scale: 10)` is `327.5`.
    private func digits(_ units: Int, scale: Int) -> String {
        guard scale > 1 else { return String(units) }
        let fraction = String(units % scale)
        return String(units / scale) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    private static let scales = [1, 10, 100, 1000]
}
