// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Turns gpsd JSON reports into ``GPSDReport``s: pure functions, no state, no I/O.
///
/// Reads `ATT` (`heading` as true heading, `mheading` as magnetic where gpsd sends it, `mag_st`,
/// `pitch`, `roll`, `time`), `TPV` (`mode`, `lat`, `lon`, `altHAE` or `alt`, `track`, `magtrack`, `magvar`, `speed`, `time`),
/// `DEVICE` (`path`, `activated`: 0 means the device went away) and `ERROR` (`message`). Unknown
/// classes and fields are ignored. Values out of range are errors, never wrapped.
public enum GPSDReportDecoder {
    /// Decodes one JSON line.
    /// - Parameter line: The line's bytes.
    /// - Returns: What the report says.
    /// - Throws: ``LineDecodingError`` for text that is not a gpsd JSON object, or a value out of range.
    public static func decode(_ line: some Collection<UInt8>) throws(LineDecodingError) -> GPSDReport {
        let raw: RawReport
        do {
            raw = try JSONDecoder().decode(RawReport.self, from: Data(line))
        } catch let error as DecodingError {
            throw .malformed("not a gpsd JSON report: \(describe(error))")
        } catch {
            throw .malformed("not a gpsd JSON report: \(error)")
        }
        switch raw.class {
        case "ATT": return try attitude(raw)
        case "TPV": return try position(raw)
        case "DEVICE":
            guard let path = raw.path else { throw .malformed("DEVICE report without a path") }
            return .device(path: path, isActive: raw.activated?.isActive ?? true)
        case "ERROR": return .error(message: raw.message ?? "gpsd reported an error without a message")
        default: return .other(className: raw.class)
        }
    }

    /// The `class` of a gpsd JSON report, without decoding or checking anything else; `nil` when
    /// the text is not a JSON object with a string `class`.
    /// - Parameter line: The line's bytes.
    /// - Returns: The class, such as `ATT`.
    public static func reportClass(of line: some Collection<UInt8>) -> String? {
        try? JSONDecoder().decode(ClassOnly.self, from: Data(line)).class
    }

    /// A report read for its class alone.
    private struct ClassOnly: Decodable {
        let `class`: String
    }

    private static func attitude(_ raw: RawReport) throws(LineDecodingError) -> GPSDReport {
        let time = try date(raw.time)
        switch raw.mag_st {
        case "C": return .attitudeAlarm(.calibrationNeeded, reason: "compass reports a magnetometer calibration alarm", time: time, device: raw.device)
        case "L": return .attitudeAlarm(.deviceLost, reason: "compass reports a low magnetic field alarm", time: time, device: raw.device)
        case "P": return .attitudeAlarm(.deviceLost, reason: "compass reports a high magnetic field alarm", time: time, device: raw.device)
        case "V": return .attitudeAlarm(.deviceLost, reason: "compass reports a magnetometer voltage alarm", time: time, device: raw.device)
        default: break
        }
        let trueHeading = try heading(raw.heading, "heading")
        let magneticHeading = try heading(raw.mheading, "mheading")
        guard trueHeading != nil || magneticHeading != nil else { return .attitude(nil, time: time, device: raw.device) }
        let reading = HeadingReading(
            trueHeading: trueHeading,
            magneticHeading: magneticHeading,
            pitch: try bounded(raw.pitch, "pitch", -180...180),
            roll: try bounded(raw.roll, "roll", -180...180),
            kind: .compass
        )
        return .attitude(reading, time: time, device: raw.device)
    }

    private static func position(_ raw: RawReport) throws(LineDecodingError) -> GPSDReport {
        let time = try date(raw.time)
        let speed = try bounded(raw.speed, "speed", 0...10_000)
        let track = try heading(raw.track, "track")
        let hasFix = (raw.mode ?? 0) >= 2
        let variation = try bounded(raw.magvar, "magvar", -180...180)
        var fix: GeographicPosition?
        if hasFix, let latitude = try bounded(raw.lat, "lat", -90...90), let longitude = try bounded(raw.lon, "lon", -180...180) {
            // Height above the ellipsoid: altHAE (gpsd 3.20+), else the older alt (MSL; within ~100 m, which the field ignores).
            // From 1 km below the ellipsoid to 100 km above: what a vessel, vehicle or aircraft can be at.
            var altitude = try bounded(raw.altHAE, "altHAE", -1000...100_000)
            if altitude == nil { altitude = try bounded(raw.alt, "alt", -1000...100_000) }
            fix = GeographicPosition(latitude: latitude, longitude: longitude, altitude: altitude)
        }
        guard hasFix, let track else {
            return .position(course: nil, speed: speed, fix: fix, variation: variation, time: time, device: raw.device)
        }
        let course = HeadingReading(
            trueHeading: track,
            magneticHeading: try heading(raw.magtrack, "magtrack") ?? variation.map { track - $0 },
            magneticVariation: variation,
            kind: .courseOverGround
        )
        return .position(course: course, speed: speed, fix: fix, variation: variation, time: time, device: raw.device)
    }

    private static func heading(_ value: Double?, _ name: String) throws(LineDecodingError) -> Double? {
        guard let value else { return nil }
        guard value.isFinite, (0...360).contains(value) else {
            throw .outOfRange("\(name) \(value) is outside 0–360°")
        }
        return value
    }

    private static func bounded(_ value: Double?, _ name: String, _ range: ClosedRange<Double>) throws(LineDecodingError)
        -> Double?
    {
        guard let value else { return nil }
        guard value.isFinite, range.contains(value) else {
            throw .outOfRange("\(name) \(value) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    /// The times a report may carry: 1980 (the GPS epoch) to 2200, as for NMEA dates.
    private static let validTimes = 315_532_800.0...7_258_118_400.0

    private static func date(_ time: RawReport.Time?) throws(LineDecodingError) -> Date? {
        let seconds: Double
        switch time {
        case nil: return nil
        case .seconds(let value)?:
            seconds = value
        case .text(let text)?:
            guard let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
                ?? (try? Date.ISO8601FormatStyle().parse(text))
            else { throw .malformed("time '\(text.prefix(40))' is not an ISO 8601 UTC time") }
            seconds = date.timeIntervalSince1970
        }
        guard seconds.isFinite, validTimes.contains(seconds) else {
            throw .outOfRange("time \(seconds) s since 1970 is outside 1980–2200")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context):
            return context.underlyingError.map { "\($0)" }.map { $0.count > 120 ? "invalid JSON" : $0 } ?? context.debugDescription
        case .keyNotFound(let key, _): return "missing '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "'\(path)' has the wrong type"
        @unknown default: return "invalid JSON"
        }
    }

    /// The fields HeadingKit reads, as gpsd spells them; every other field is ignored.
    private struct RawReport: Decodable {
        enum Time: Decodable {
            case seconds(Double)
            case text(String)

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let seconds = try? container.decode(Double.self) { self = .seconds(seconds) } else {
                    self = .text(try container.decode(String.self))
                }
            }
        }

        /// `activated` is a time (or a number of seconds) while a device is active, and 0 when it went away.
        enum Activation: Decodable {
            case active
            case inactive

            var isActive: Bool { if case .active = self { true } else { false } }

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Double.self) { self = number == 0 ? .inactive : .active } else {
                    _ = try container.decode(String.self)
                    self = .active
                }
            }
        }

        let `class`: String
        let device: String?
        let time: Time?
        let heading: Double?
        let mheading: Double?
        let mag_st: String?
        let pitch: Double?
        let roll: Double?
        let mode: Int?
        let track: Double?
        let magtrack: Double?
        let magvar: Double?
        let lat: Double?
        let lon: Double?
        let alt: Double?
        let altHAE: Double?
        let speed: Double?
        let path: String?
        let activated: Activation?
        let message: String?
    }
}
