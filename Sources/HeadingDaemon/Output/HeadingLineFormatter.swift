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
        var sourceName = InternedName("")
        var quotedSource = Array("\"\"".utf8)
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
            // Room for the quoted source at its longest: every byte escaped as `\u00XX`.
            let capacity = Self.jsonRoom + 2 + 6 * heading.source.utf8.count
            return String(unsafeUninitializedCapacity: capacity) { writeJSON(heading, into: $0) ?? 0 }
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

    /// Writes the line for one heading, without a newline, at the start of `buffer`: the same
    /// text as ``line(for:)``, written in place (the batched output's block), with no string and
    /// no array in between.
    /// - Parameters:
    ///   - heading: The heading.
    ///   - buffer: Where the line goes.
    /// - Returns: The line's length, or `nil` when `buffer` has too little room for it (what
    ///   was written then is not a line, and does not count).
    func write(_ heading: Heading, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        switch format {
        case .json: return writeJSON(heading, into: buffer)
        case .text:
            var line = line(for: heading)
            return line.withUTF8 { utf8 in
                guard utf8.count <= buffer.count else { return nil }
                return buffer.initialize(fromContentsOf: utf8)
            }
        }
    }

    /// The room a JSON line takes besides its quoted source: the keys (≈ 200 bytes), nine
    /// numbers of at most 32, the timestamp, kind and origin.
    private static let jsonRoom = 768

    private func writeJSON(_ heading: Heading, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        var line = ByteCursor(buffer)
        let room = buffer.count
        return memo.withLock { memo in
            if memo.sourceName != heading.sourceName {  // kept names: an address compare
                memo.sourceName = heading.sourceName
                memo.quotedSource = Array(JSONText.quoted(heading.source).utf8)
            }
            guard room >= Self.jsonRoom + memo.quotedSource.count else { return nil }
            line.write(#"{"trueHeading":"#)
            line.write(number: heading.trueHeading)
            line.write(#","magneticHeading":"#)
            line.write(number: heading.magneticHeading)
            line.write(#","accuracy":"#)
            line.write(number: heading.headingAccuracy)
            line.write(#","timestamp":""#)
            line.writeTimestamp(heading.timestamp, lastSecond: &memo.second, parts: &memo.parts)
            line.write(#"","source":"#)
            memo.quotedSource.withUnsafeBufferPointer { line.write($0) }
            line.write(#","kind":""#)
            line.write(heading.kind.rawValue)  // identifiers: nothing to escape
            line.write(byte: UInt8(ascii: "\""))
            if let pitch = heading.pitch, pitch.isFinite { line.write(#","pitch":"#, pitch) }
            if let roll = heading.roll, roll.isFinite { line.write(#","roll":"#, roll) }
            if let variation = heading.magneticVariation, variation.isFinite { line.write(#","magneticVariation":"#, variation) }
            if let deviation = heading.deviation, deviation.isFinite { line.write(#","deviation":"#, deviation) }
            if let origin = heading.variationOrigin {
                line.write(#","variationOrigin":""#)
                line.write(origin.rawValue)
                line.write(byte: UInt8(ascii: "\""))
            }
            if let position = heading.position {
                line.write(#","latitude":"#, position.latitude)
                line.write(#","longitude":"#, position.longitude)
            }
            line.write(byte: UInt8(ascii: "}"))
            return line.count
        }
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
        var second = time_t.min
        var parts = tm()
        line += String(unsafeUninitializedCapacity: maximumTimestampLength) { buffer in
            writeTimestamp(date, to: buffer.baseAddress!, lastSecond: &second, parts: &parts)
        }
    }

    /// The most bytes ``writeTimestamp(_:to:lastSecond:parts:)`` writes.
    static let maximumTimestampLength = 64

    /// Writes `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` at `start` (room for
    /// ``maximumTimestampLength`` bytes), reusing `parts` (the calendar fields of `lastSecond`)
    /// when the date falls in that second, and leaving its own there. Years outside 0 to 9999
    /// are written by Foundation's ISO 8601 style. Returns the length.
    fileprivate static func writeTimestamp(_ date: Date, to start: UnsafeMutablePointer<UInt8>, lastSecond: inout time_t, parts: inout tm) -> Int {
        func foundationText() -> Int {
            var text = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            return text.withUTF8 { utf8 in
                let count = min(utf8.count, maximumTimestampLength)
                start.update(from: utf8.baseAddress!, count: count)
                return count
            }
        }
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return foundationText() }
        let total = Int64(milliseconds)
        var seconds = time_t(total >= 0 ? total / 1000 : (total - 999) / 1000)
        let millisecond = Int(total - Int64(seconds) * 1000)
        if seconds != lastSecond {
            guard gmtime_r(&seconds, &parts) != nil else {
                lastSecond = .min
                return foundationText()
            }
            lastSecond = seconds
        }
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else { return foundationText() }
        func put(_ value: Int, at offset: Int, digits: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                start[index] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4)
        start[4] = UInt8(ascii: "-")
        put(Int(parts.tm_mon) + 1, at: 5, digits: 2)
        start[7] = UInt8(ascii: "-")
        put(Int(parts.tm_mday), at: 8, digits: 2)
        start[10] = UInt8(ascii: "T")
        put(Int(parts.tm_hour), at: 11, digits: 2)
        start[13] = UInt8(ascii: ":")
        put(Int(parts.tm_min), at: 14, digits: 2)
        start[16] = UInt8(ascii: ":")
        put(Int(parts.tm_sec), at: 17, digits: 2)
        start[19] = UInt8(ascii: ".")
        put(millisecond, at: 20, digits: 3)
        start[23] = UInt8(ascii: "Z")
        return 24
    }
}

/// Writes bytes into a buffer the caller has sized for the whole line: the JSON line formatter's
/// cursor. Every write stays within the buffer (each checks the room it needs and writes nothing
/// when there is none, so a line that would not fit is cut, never overrun).
private struct ByteCursor: @unchecked Sendable {
    // @unchecked Sendable: a cursor lives inside one call of `writeJSON`, where it writes the
    // caller's buffer under the formatter's `memo` Mutex, and never leaves that call.
    let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    private var room: Int { buffer.count - count }

    mutating func write(byte: UInt8) {
        guard room >= 1 else { return }
        buffer[count] = byte
        count += 1
    }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard room >= bytes.count, let source = bytes.baseAddress else { return }
        (buffer.baseAddress! + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func write(_ text: StaticString) {
        text.withUTF8Buffer { write($0) }
    }

    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { write($0) }
    }

    /// A JSON number, or `null` for unknown or non-finite values.
    mutating func write(number value: Double?) {
        guard let value, value.isFinite else { return write("null") }
        guard room >= DecimalText.maximumLength else { return }
        count += DecimalText.write(value, to: buffer.baseAddress! + count)
    }

    /// `name` (with its quotes, colon and leading comma) and a finite number.
    mutating func write(_ name: StaticString, _ value: Double) {
        write(name)
        write(number: value)
    }

    mutating func writeTimestamp(_ date: Date, lastSecond: inout time_t, parts: inout tm) {
        guard room >= HeadingLineFormatter.maximumTimestampLength else { return }
        count += HeadingLineFormatter.writeTimestamp(date, to: buffer.baseAddress! + count, lastSecond: &lastSecond, parts: &parts)
    }
}
