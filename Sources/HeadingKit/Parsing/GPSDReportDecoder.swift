// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Turns gpsd JSON reports into ``GPSDReport``s: pure functions, no state, no I/O.
///
/// Reads `ATT` (`heading` as true heading, `mheading` as magnetic where gpsd sends it, `mag_st`,
/// `pitch`, `roll`, `time`), `TPV` (`mode`, `lat`, `lon`, `altHAE` or `alt`, `track`, `magtrack`, `magvar`, `speed`, `time`,
/// and `relH`, a moving-base receiver's heading),
/// `DEVICE` (`path`, `activated`: 0 means the device went away) and `ERROR` (`message`). Unknown
/// classes and fields are ignored. Values out of range are errors, never wrapped.
public enum GPSDReportDecoder {
    /// Decodes one JSON line.
    /// - Parameter line: The line's bytes.
    /// - Returns: What the report says.
    /// - Throws: ``LineDecodingError`` for text that is not a gpsd JSON object, or a value out of range.
    public static func decode(_ line: some Collection<UInt8>) throws(LineDecodingError) -> GPSDReport {
        // Most reports are flat objects of strings and numbers: read those in one pass over the
        // bytes. Anything else (escapes, nesting, literals, a duplicate key, a value of the wrong
        // type, broken JSON) goes to JSONDecoder, which decides and words the error.
        let fast: RawReport?
        if let scanned = line.withContiguousStorageIfAvailable({ FlatReportScanner.scan($0) }) {
            fast = scanned
        } else {
            fast = Array(line).withUnsafeBufferPointer { FlatReportScanner.scan($0) }
        }
        if let fast { return try report(from: fast) }
        return try report(from: decodedWithJSONDecoder(line))
    }

    /// ``decode(_:)`` through `JSONDecoder` alone: the reference the single-pass reader is fuzzed against.
    /// - Parameter line: The line's bytes.
    /// - Returns: What the report says.
    /// - Throws: ``LineDecodingError`` as ``decode(_:)``.
    package static func decodeWithJSONDecoder(_ line: some Collection<UInt8>) throws(LineDecodingError) -> GPSDReport {
        try report(from: decodedWithJSONDecoder(line))
    }

    private static func decodedWithJSONDecoder(_ line: some Collection<UInt8>) throws(LineDecodingError) -> RawReport {
        do {
            return try JSONDecoder().decode(RawReport.self, from: Data(line))
        } catch let error as DecodingError {
            throw .malformed("not a gpsd JSON report: \(describe(error))")
        } catch {
            throw .malformed("not a gpsd JSON report: \(error)")
        }
    }

    private static func report(from raw: RawReport) throws(LineDecodingError) -> GPSDReport {
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
        // A moving-base heading (u-blox RELPOSNED through gpsd): true heading of a dual-antenna GNSS,
        // with neither accuracy nor validity (gpsd passes neither on); only with a fix.
        let relative = try heading(raw.relH, "relH").flatMap { hasFix ? HeadingReading(trueHeading: $0, kind: .gnssCompass) : nil }
        guard hasFix, let track else {
            return .position(course: nil, speed: speed, fix: fix, variation: variation, time: time, device: raw.device, relativeHeading: relative)
        }
        let course = HeadingReading(
            trueHeading: track,
            magneticHeading: try heading(raw.magtrack, "magtrack") ?? variation.map { track - $0 },
            magneticVariation: variation,
            kind: .courseOverGround
        )
        return .position(course: course, speed: speed, fix: fix, variation: variation, time: time, device: raw.device, relativeHeading: relative)
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

        var `class` = ""
        var device: String?
        var time: Time?
        var heading: Double?
        var mheading: Double?
        var mag_st: String?
        var pitch: Double?
        var roll: Double?
        var mode: Int?
        var track: Double?
        var magtrack: Double?
        var magvar: Double?
        var relH: Double?
        var lat: Double?
        var lon: Double?
        var alt: Double?
        var altHAE: Double?
        var speed: Double?
        var path: String?
        var activated: Activation?
        var message: String?

        init() {}
    }

    /// Reads a report that is one flat JSON object of strings and numbers in a single pass,
    /// giving exactly what `JSONDecoder` gives for it; `nil` for anything it does not handle
    /// that way, which then goes to `JSONDecoder`.
    private enum FlatReportScanner {
        /// A string or number value, as the bytes it spans (a string without its quotes).
        private enum Value {
            case string(Range<Int>)
            case number(Range<Int>)
        }

        static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> RawReport? {
            var index = 0
            func skipSpace() {
                while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
                    index += 1
                }
            }
            /// A string without escapes or control bytes, ASCII only; the index is left after its closing quote.
            func string() -> Range<Int>? {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
                let start = index + 1
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    guard bytes[end] >= 0x20, bytes[end] < 0x7F, bytes[end] != UInt8(ascii: "\\") else { return nil }
                    end += 1
                }
                guard end < bytes.count else { return nil }
                index = end + 1
                return start..<end
            }
            /// A number in JSON's grammar; the index is left after it.
            func number() -> Range<Int>? {
                let start = index
                if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
                func digits() -> Int {
                    let first = index
                    while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
                    return index - first
                }
                let whole = index
                guard digits() > 0, bytes[whole] != UInt8(ascii: "0") || index - whole == 1 else { return nil }
                if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                    index += 1
                    guard digits() > 0 else { return nil }
                }
                if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                    // swift-foundation's JSONDecoder refuses an unsigned bare 0 with an unsigned
                    // exponent (`0E7`, though JSON allows it): left to it, for the same verdict.
                    let bareZero = start == whole && index == whole + 1 && bytes[whole] == UInt8(ascii: "0")
                    index += 1
                    if bareZero, index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { return nil }
                    if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                    guard digits() > 0 else { return nil }
                }
                return start..<index
            }

            var raw = RawReport()
            var seen: UInt32 = 0  // the fields read so far, one bit each
            var hasClass = false
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
            index += 1
            skipSpace()
            var isFirst = true
            while true {
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "}"), isFirst {  // {}
                    index += 1
                    break
                }
                guard let keyRange = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipSpace()
                guard index < bytes.count else { return nil }
                let value: Value
                if bytes[index] == UInt8(ascii: "\"") {
                    guard let range = string() else { return nil }
                    value = .string(range)
                } else {
                    guard let range = number() else { return nil }
                    value = .number(range)
                }
                let key = UnsafeBufferPointer(rebasing: bytes[keyRange])
                if let (field, bit) = Field.named(key) {
                    guard seen & bit == 0, apply(value, to: field, of: &raw, in: bytes) else { return nil }
                    seen |= bit
                    if field == .class { hasClass = true }
                }
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipSpace()
                    isFirst = false
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { return nil }
                index += 1
                break
            }
            skipSpace()
            guard index == bytes.count, hasClass else { return nil }
            return raw
        }

        /// The keys HeadingKit reads, spelled as gpsd spells them.
        private enum Field: String, CaseIterable {
            case `class`, device, time, heading, mheading, mag_st, pitch, roll, mode, track, magtrack, magvar, lat, lon, alt, altHAE, speed, path,
                activated, message, relH

            /// Each key's bytes, its field, and the field's bit in a set of fields seen.
            private static let table = allCases.enumerated().map { index, field in
                (name: Array(field.rawValue.utf8), field: field, bit: UInt32(1) << UInt32(index))
            }

            /// The field `key` names, with its bit; `nil` for a key HeadingKit does not read.
            static func named(_ key: UnsafeBufferPointer<UInt8>) -> (field: Field, bit: UInt32)? {
                Self.table.first { $0.name.elementsEqual(key) }.map { ($0.field, $0.bit) }
            }
        }

        /// Sets the field from the value; `false` when its type is not the one `JSONDecoder` would accept.
        private static func apply(_ value: Value, to field: Field, of raw: inout RawReport, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            func double(_ range: Range<Int>) -> Double? {
                let slice = UnsafeBufferPointer(rebasing: bytes[range])
                // Plain decimals as NMEA fields are read (exact, strtod's value); exponents through Double(_:).
                if !slice.contains(UInt8(ascii: "e")), !slice.contains(UInt8(ascii: "E")), slice.count <= 20,
                    let value = NMEASentence.plainDecimal(slice)  // read in place: no copy of the digits
                {
                    return value
                }
                guard let value = Double(text(range)), value.isFinite else { return nil }
                return value
            }
            switch (field, value) {
            case (.class, .string(let range)): raw.class = text(range)
            case (.device, .string(let range)): raw.device = text(range)
            case (.mag_st, .string(let range)): raw.mag_st = text(range)
            case (.path, .string(let range)): raw.path = text(range)
            case (.message, .string(let range)): raw.message = text(range)
            case (.time, .string(let range)): raw.time = .text(text(range))
            case (.time, .number(let range)):
                guard let value = double(range) else { return false }
                raw.time = .seconds(value)
            case (.activated, .string): raw.activated = .active
            case (.activated, .number(let range)):
                guard let value = double(range) else { return false }
                raw.activated = value == 0 ? .inactive : .active
            case (.mode, .number(let range)):
                // An integer literal that fits; anything else is JSONDecoder's to judge.
                let slice = UnsafeBufferPointer(rebasing: bytes[range])
                guard slice.count <= 9, !slice.contains(UInt8(ascii: ".")), !slice.contains(UInt8(ascii: "e")),
                    !slice.contains(UInt8(ascii: "E")), let mode = Int(text(range))
                else { return false }
                raw.mode = mode
            case (.heading, .number(let range)), (.mheading, .number(let range)), (.pitch, .number(let range)),
                (.roll, .number(let range)), (.track, .number(let range)), (.magtrack, .number(let range)),
                (.magvar, .number(let range)), (.lat, .number(let range)), (.lon, .number(let range)), (.alt, .number(let range)),
                (.altHAE, .number(let range)), (.speed, .number(let range)), (.relH, .number(let range)):
                guard let value = double(range) else { return false }
                switch field {
                case .heading: raw.heading = value
                case .mheading: raw.mheading = value
                case .pitch: raw.pitch = value
                case .roll: raw.roll = value
                case .track: raw.track = value
                case .magtrack: raw.magtrack = value
                case .magvar: raw.magvar = value
                case .lat: raw.lat = value
                case .lon: raw.lon = value
                case .alt: raw.alt = value
                case .altHAE: raw.altHAE = value
                case .relH: raw.relH = value
                default: raw.speed = value
                }
            default:
                return false
            }
            return true
        }
    }
}
