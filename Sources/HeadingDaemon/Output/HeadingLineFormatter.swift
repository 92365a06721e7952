// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns headings into the lines headingd prints: readable text, or one JSON object per line.
///
/// On the hot path of a flat-out replay, so it avoids Foundation's formatters: the timestamp is
/// written digit by digit from `gmtime_r`, and the JSON-quoted source name is kept from one
/// heading to the next (a source's name does not change).
final class HeadingLineFormatter: Sendable {
    /// The output format.
    let format: OutputFormat
    private let quotedSource = Mutex<(name: String, quoted: String)>(("", "\"\""))

    /// Creates a formatter.
    /// - Parameter format: The output format.
    init(format: OutputFormat) { self.format = format }

    /// The line for one heading.
    ///
    /// JSON always has `trueHeading`, `magneticHeading`, `accuracy` (each `null` when unknown),
    /// `timestamp` (ISO 8601, UTC, milliseconds), `source` and `kind`; `pitch`, `roll`,
    /// `magneticVariation`, `deviation`, `variationOrigin` (`device`, `model` or `none`: where the
    /// variation behind a derived true or magnetic heading came from) and `latitude`/`longitude`
    /// (the source's last fix) appear when known.
    /// - Parameter heading: The heading.
    /// - Returns: The line, without a newline.
    func line(for heading: Heading) -> String {
        var line = ""
        line.reserveCapacity(224)
        switch format {
        case .json:
            line += "{\"trueHeading\":"
            line += Self.number(heading.trueHeading)
            line += ",\"magneticHeading\":"
            line += Self.number(heading.magneticHeading)
            line += ",\"accuracy\":"
            line += Self.number(heading.headingAccuracy)
            line += ",\"timestamp\":\""
            Self.appendTimestamp(heading.timestamp, to: &line)
            line += "\",\"source\":"
            line += quoted(source: heading.source)
            line += ",\"kind\":\""
            line += heading.kind.rawValue  // identifiers: nothing to escape
            line += "\""
            if let pitch = heading.pitch, pitch.isFinite { line += ",\"pitch\":\(pitch)" }
            if let roll = heading.roll, roll.isFinite { line += ",\"roll\":\(roll)" }
            if let variation = heading.magneticVariation, variation.isFinite { line += ",\"magneticVariation\":\(variation)" }
            if let deviation = heading.deviation, deviation.isFinite { line += ",\"deviation\":\(deviation)" }
            if let origin = heading.variationOrigin { line += ",\"variationOrigin\":\"\(origin.rawValue)\"" }
            if let position = heading.position {
                line += ",\"latitude\":\(position.latitude),\"longitude\":\(position.longitude)"
            }
            line += "}"
        case .text:
            Self.appendTimestamp(heading.timestamp, to: &line)
            line += " "
            line += heading.source
            line += " true "
            line += Self.degrees(heading.trueHeading)
            line += " magnetic "
            line += Self.degrees(heading.magneticHeading)
            if let accuracy = heading.headingAccuracy { line += " ±" + Self.degrees(accuracy) }
            if let variation = heading.magneticVariation, let origin = heading.variationOrigin, origin != .none {
                line += " variation " + Self.degrees(variation) + " (" + origin.rawValue + ")"
            }
            line += " ("
            line += heading.kind.rawValue
            line += ")"
        }
        return line
    }

    /// A JSON number, or `null` for unknown or non-finite values.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return value.description
    }

    /// Degrees with two decimals and a degree sign, or `unknown`.
    static func degrees(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "unknown" }
        let hundredths = Int((abs(value) * 100).rounded())
        let fraction = hundredths % 100
        return (value < 0 && hundredths > 0 ? "-" : "") + "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)°"
    }

    /// Appends `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, rounded to the millisecond.
    static func appendTimestamp(_ date: Date, to line: inout String) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else {
            line += date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            return
        }
        let total = Int64(milliseconds)
        var seconds = time_t(total >= 0 ? total / 1000 : (total - 999) / 1000)
        let millisecond = Int(total - Int64(seconds) * 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else {
            line += date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            return
        }
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0x2D, 0, 0, 0x2D, 0, 0, 0x54, 0, 0, 0x3A, 0, 0, 0x3A, 0, 0, 0x2E, 0, 0, 0, 0x5A)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            func put(_ value: Int, at offset: Int, digits: Int) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                    value /= 10
                }
            }
            put(Int(parts.tm_year) + 1900, at: 0, digits: 4)
            put(Int(parts.tm_mon) + 1, at: 5, digits: 2)
            put(Int(parts.tm_mday), at: 8, digits: 2)
            put(Int(parts.tm_hour), at: 11, digits: 2)
            put(Int(parts.tm_min), at: 14, digits: 2)
            put(Int(parts.tm_sec), at: 17, digits: 2)
            put(millisecond, at: 20, digits: 3)
            line += String(decoding: UnsafeRawBufferPointer(buffer), as: UTF8.self)
        }
    }

    /// `source` as a JSON string, remembered for the next heading from the same source.
    private func quoted(source: String) -> String {
        if let cached = quotedSource.withLock({ $0.name == source ? $0.quoted : nil }) { return cached }
        let quoted = JSONText.quoted(source)
        quotedSource.withLock { $0 = (source, quoted) }
        return quoted
    }
}
