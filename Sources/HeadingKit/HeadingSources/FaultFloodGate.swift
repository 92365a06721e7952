// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Keeps a flood of bad input from becoming a flood of faults: a noisy instrument (a wrong baud
/// rate on a multiplexer, a sentence with a bad checksum ten times a second) is one raised fault
/// with a running count, not thousands of events for every consumer and log line.
///
/// Per fault code (``HeadingFault/Code/malformedInput``, ``HeadingFault/Code/outOfRange``,
/// ``HeadingFault/Code/unsupportedInput``; every other fault passes untouched), the first
/// ``leading`` bad lines of a flood pass whole, as they always did. After them, the gate counts
/// what it holds back and lets out at most one summary each ``interval``: a fault of the same
/// code whose ``HeadingFault/occurrences`` is the number of lines it stands for, whose reason
/// gives their counts by kind (`checksum`, `malformed`, `out_of_range`, `unsupported`, as
/// `headingd_source_lines_total` labels them) and the last one's reason, and whose location is
/// the last one's. A flood ends when the code has been clean for ``interval``: ``tick(at:)`` then
/// says so once (when anything was held back), and the next bad line starts a new flood that is
/// again reported whole. Nothing is lost: the occurrences of what passes add up to every bad line.
///
/// A pure value: time is given, so tests state it exactly. A source keeps one under its lock,
/// passes each fault through ``admit(_:at:)`` and calls ``tick(at:)`` when it wakes.
package struct FaultFloodGate: Sendable {
    /// The codes a flood is made of: faults about one line of input.
    package static let floodingCodes: Set<HeadingFault.Code> = [.malformedInput, .outOfRange, .unsupportedInput]
    /// The default time between two summaries, and the clean time that ends a flood.
    package static let defaultInterval = Duration.seconds(10)

    /// A flood that ended: the code was clean for the interval.
    package struct Calm: Sendable, Equatable, CustomStringConvertible {
        /// The flood's code.
        package let code: HeadingFault.Code
        /// The source that raised it.
        package let source: String
        /// Bad lines in the whole flood.
        package let lines: Int
        /// How long the flood lasted, from its first bad line to its last.
        package let duration: Duration
        /// The clean time that ended it.
        package let clean: Duration

        /// One line for the log.
        package var description: String {
            "\(source): \(code): input clean again (no bad line for \(seconds(clean)) s) after \(lines) bad lines in \(seconds(duration)) s"
        }
    }

    private struct Flood: Sendable {
        let startedAt: ContinuousClock.Instant
        var lastBadAt: ContinuousClock.Instant
        /// When the last fault of this flood passed (the first, or a summary).
        var lastPassedAt: ContinuousClock.Instant
        /// Bad lines in the flood.
        var lines = 0
        /// Faults passed whole.
        var passed = 0
        /// Lines held back since the last fault passed, by kind.
        var held: [String: Int] = [:]
        var heldCount = 0
        /// The last line held back.
        var last: HeadingFault?
    }

    /// The time between two summaries, and the clean time that ends a flood.
    package let interval: Duration
    /// How many bad lines of a flood pass whole before summaries begin.
    package let leading: Int
    private var floods: [HeadingFault.Code: Flood] = [:]

    /// Creates a gate.
    /// - Parameters:
    ///   - interval: The time between two summaries, and the clean time that ends a flood. Default 10 s.
    ///   - leading: How many bad lines of a flood pass whole. Default 1 (a live source); a replay
    ///     names more, each with its `FILE:LINE`.
    package init(interval: Duration = defaultInterval, leading: Int = 1) {
        self.interval = interval
        self.leading = max(1, leading)
    }

    /// Passes a fault on, holds it back, or passes the summary it completes.
    /// - Parameters:
    ///   - fault: The fault a source raised.
    ///   - now: When.
    /// - Returns: The fault to report (itself or a summary), or `nil` when it is held back.
    package mutating func admit(_ fault: HeadingFault, at now: ContinuousClock.Instant) -> HeadingFault? {
        guard Self.floodingCodes.contains(fault.code) else { return fault }
        guard var flood = floods[fault.code] else {
            var flood = Flood(startedAt: now, lastBadAt: now, lastPassedAt: now)
            flood.lines = fault.occurrences
            flood.passed = 1
            floods[fault.code] = flood
            return fault
        }
        defer { floods[fault.code] = flood }
        flood.lines += fault.occurrences
        flood.lastBadAt = now
        if flood.passed < leading, flood.heldCount == 0 {
            flood.passed += 1
            flood.lastPassedAt = now
            return fault
        }
        flood.heldCount += fault.occurrences
        flood.held[LineCounts.result(of: fault) ?? fault.code.rawValue, default: 0] += fault.occurrences
        flood.last = fault
        guard now - flood.lastPassedAt >= interval else { return nil }
        return Self.summary(of: &flood, at: now)
    }

    /// What the time alone decides: the summaries now due, and the floods that ended.
    /// - Parameter now: When.
    /// - Returns: The summaries to report, and a line each for the floods that ended (for a log).
    package mutating func tick(at now: ContinuousClock.Instant) -> (summaries: [HeadingFault], calmed: [Calm]) {
        guard !floods.isEmpty else { return ([], []) }
        var summaries: [HeadingFault] = []
        var calmed: [Calm] = []
        for code in floods.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var flood = floods[code] else { continue }
            if flood.heldCount > 0, now - flood.lastPassedAt >= interval, let summary = Self.summary(of: &flood, at: now) {
                summaries.append(summary)
            }
            if flood.heldCount == 0, now - flood.lastBadAt >= interval {
                floods[code] = nil
                if flood.lines > flood.passed, let last = flood.last {
                    calmed.append(Calm(code: code, source: last.source, lines: flood.lines, duration: flood.lastBadAt - flood.startedAt, clean: interval))
                }
            } else {
                floods[code] = flood
            }
        }
        return (summaries, calmed)
    }

    /// The summaries of everything held back, at once: at the end of a replay, or when a source stops.
    /// - Parameter now: When.
    /// - Returns: The summaries, one per code holding lines.
    package mutating func flush(at now: ContinuousClock.Instant) -> [HeadingFault] {
        var summaries: [HeadingFault] = []
        for code in floods.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var flood = floods[code] else { continue }
            if let summary = Self.summary(of: &flood, at: now) { summaries.append(summary) }
            floods[code] = flood
        }
        return summaries
    }

    /// Forgets every flood: the source starts again.
    package mutating func reset() { floods.removeAll() }

    /// The summary of what `flood` holds, which it then no longer holds.
    private static func summary(of flood: inout Flood, at now: ContinuousClock.Instant) -> HeadingFault? {
        guard flood.heldCount > 0, let last = flood.last else { return nil }
        defer {
            flood.held.removeAll(keepingCapacity: true)
            flood.heldCount = 0
            flood.lastPassedAt = now
        }
        let kinds = flood.held.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let noun = flood.heldCount == 1 ? "bad line" : "bad lines"
        let reason = "\(flood.heldCount) more \(noun) in \(seconds(now - flood.lastPassedAt)) s (\(kinds)), summarised; "
            + "\(flood.lines) in this flood so far; the last: \(last.reason)"
        return HeadingFault(
            code: last.code, source: last.source, reason: reason, location: last.location, timestamp: last.timestamp,
            occurrences: flood.heldCount
        )
    }
}

/// Whole seconds, or tenths below ten, for a log line.
private func seconds(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return value < 10 ? String(format: "%.1f", value) : String(Int(value.rounded()))
}
