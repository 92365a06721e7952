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
/// On the hot path of a flat-out replay, so it avoids Foundation's formatters: numbers are written
/// by ``DecimalText`` (the same text as `description`, without a string), the timestamp digit by
/// digit from `gmtime_r`, and the JSON-quoted source name is kept from one heading to the next
/// (a source's name does not change).
final class HeadingLineFormatter: Sendable {
    /// The output format.
    let format: OutputFormat
    /// What one line leaves for the next: the source's name JSON-quoted, and the calendar
    /// fields of the last timestamp's second (ten headings a second share one).
    private let memo = Mutex(Memo())

    private struct Memo {
        var sourceName = ""
        var quotedSource = "\"\""
        var second = time_t.min
        var parts = tm()
    }

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
        switch format {
        case .json:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(256)
            appendJSON(heading, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        case .text:
            var line = ""
            line.reserveCapacity(128)
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
            return line
        }
    }

    /// Appends the line for one heading, without a newline, to `bytes`: the same text as
    /// ``line(for:)``, written straight into a buffer that is reused from line to line.
    /// - Parameters:
    ///   - heading: The heading.
    ///   - bytes: Where the line goes.
    func append(_ heading: Heading, to bytes: inout [UInt8]) {
        switch format {
        case .json: appendJSON(heading, to: &bytes)
        case .text: bytes.append(contentsOf: line(for: heading).utf8)
        }
    }

    private func appendJSON(_ heading: Heading, to bytes: inout [UInt8]) {
        Self.append(#"{"trueHeading":"#, to: &bytes)
        Self.appendNumber(heading.trueHeading, to: &bytes)
        Self.append(#","magneticHeading":"#, to: &bytes)
        Self.appendNumber(heading.magneticHeading, to: &bytes)
        Self.append(#","accuracy":"#, to: &bytes)
        Self.appendNumber(heading.headingAccuracy, to: &bytes)
        Self.append(#","timestamp":""#, to: &bytes)
        memo.withLock { memo in
            Self.appendTimestamp(heading.timestamp, to: &bytes, lastSecond: &memo.second, parts: &memo.parts)
            Self.append(#"","source":"#, to: &bytes)
            if memo.sourceName != heading.source {
                memo.sourceName = heading.source
                memo.quotedSource = JSONText.quoted(heading.source)
            }
            Self.append(memo.quotedSource, to: &bytes)
        }
        Self.append(#","kind":""#, to: &bytes)
        Self.append(heading.kind.rawValue, to: &bytes)  // identifiers: nothing to escape
        bytes.append(UInt8(ascii: "\""))
        if let pitch = heading.pitch, pitch.isFinite { Self.appendMember(#","pitch":"#, pitch, to: &bytes) }
        if let roll = heading.roll, roll.isFinite { Self.appendMember(#","roll":"#, roll, to: &bytes) }
        if let variation = heading.magneticVariation, variation.isFinite {
            Self.appendMember(#","magneticVariation":"#, variation, to: &bytes)
        }
        if let deviation = heading.deviation, deviation.isFinite { Self.appendMember(#","deviation":"#, deviation, to: &bytes) }
        if let origin = heading.variationOrigin {
            Self.append(#","variationOrigin":""#, to: &bytes)
            Self.append(origin.rawValue, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        if let position = heading.position {
            Self.appendMember(#","latitude":"#, position.latitude, to: &bytes)
            Self.appendMember(#","longitude":"#, position.longitude, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends a literal's bytes: one copy, no `UTF8View` iteration.
    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends a string's UTF-8 bytes in one copy (a short string is copied off the stack).
    private static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends `name` (with its quotes, colon and leading comma) and a finite number.
    private static func appendMember(_ name: StaticString, _ value: Double, to bytes: inout [UInt8]) {
        append(name, to: &bytes)
        DecimalText.append(value, to: &bytes)
    }

    /// Appends a JSON number, or `null` for unknown or non-finite values.
    private static func appendNumber(_ value: Double?, to bytes: inout [UInt8]) {
        guard let value, value.isFinite else { return append("null", to: &bytes) }
        DecimalText.append(value, to: &bytes)
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
        var bytes: [UInt8] = []
        appendTimestamp(date, to: &bytes)
        line += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, rounded to the millisecond, to `bytes`.
    static func appendTimestamp(_ date: Date, to bytes: inout [UInt8]) {
        var second = time_t.min
        var parts = tm()
        appendTimestamp(date, to: &bytes, lastSecond: &second, parts: &parts)
    }

    /// Appends `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` to `bytes`, reusing `parts` (the calendar
    /// fields of `lastSecond`) when the date falls in that second, and leaving its own there.
    private static func appendTimestamp(_ date: Date, to bytes: inout [UInt8], lastSecond: inout time_t, parts: inout tm) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else {
            bytes.append(contentsOf: date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)).utf8)
            return
        }
        let total = Int64(milliseconds)
        var seconds = time_t(total >= 0 ? total / 1000 : (total - 999) / 1000)
        let millisecond = Int(total - Int64(seconds) * 1000)
        if seconds != lastSecond {
            guard gmtime_r(&seconds, &parts) != nil else {
                lastSecond = .min
                bytes.append(contentsOf: date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)).utf8)
                return
            }
            lastSecond = seconds
        }
        var text: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0x2D, 0, 0, 0x2D, 0, 0, 0x54, 0, 0, 0x3A, 0, 0, 0x3A, 0, 0, 0x2E, 0, 0, 0, 0x5A)
        withUnsafeMutableBytes(of: &text) { buffer in
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
            bytes.append(contentsOf: UnsafeRawBufferPointer(buffer))
        }
    }
}
