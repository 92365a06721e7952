// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Tells "no heading sensor" from "all quiet": for a source that is open (or connected) but has
/// delivered no heading since, what did arrive — sentences, their talkers and types — so that the
/// `stale` fault it raises, once, says it.
///
/// Only the time before a source's first heading is watched: once headings flowed, a
/// ``HeadingProcessor`` calls a silence stale itself. A pure value; time is given.
package struct SilenceWatch: Sendable {
    private var openedAt: ContinuousClock.Instant?
    private var hasHeading = false
    private var isReported = false
    private var lines = 0
    /// Whether what arrived were NMEA 2000 frames, not lines.
    private var isBus = false
    private var takenLines = 0
    /// Talkers seen, two bytes each, at most ``maximumKept``.
    private var talkers: [UInt16] = []
    /// Sentence types seen, at most ``maximumKept``.
    private var types: [String] = []
    private static let maximumKept = 8

    package init() {}

    /// The transport opened, or gpsd began to send: the watch starts again.
    package mutating func opened(at now: ContinuousClock.Instant) {
        self = SilenceWatch()
        openedAt = now
    }

    /// The transport closed: nothing to watch until it opens again.
    package mutating func closed() {
        openedAt = nil
    }

    /// A heading went out: nothing more to watch until the next opening.
    package mutating func headingDelivered() {
        hasHeading = true
    }

    /// Counts a line and notes its talker and type.
    /// - Parameters:
    ///   - line: The line.
    ///   - address: Its address.
    ///   - taken: Whether the source takes it.
    package mutating func saw(_ line: UnsafeBufferPointer<UInt8>, address: NMEASentenceSelection.Address, taken: Bool) {
        guard !hasHeading else { return }
        lines += 1
        if taken { takenLines += 1 }
        if address.talker != 0, talkers.count < Self.maximumKept, !talkers.contains(address.talker) { talkers.append(address.talker) }
        if !address.type.isEmpty, types.count < Self.maximumKept {
            let type = String(decoding: UnsafeBufferPointer(rebasing: line[address.type]), as: UTF8.self)
            if !types.contains(type) { types.append(type) }
        }
    }

    /// Counts an NMEA 2000 frame or message and notes its PGN.
    package mutating func saw(pgn: UInt32, source: UInt8) {
        guard !hasHeading else { return }
        lines += 1
        isBus = true
        let type = "PGN \(pgn) from \(source)"
        if types.count < Self.maximumKept, !types.contains(type) { types.append(type) }
    }

    /// The reason for a `stale` fault, once, when the source has been open `timeout` without a heading.
    /// - Parameters:
    ///   - now: Now.
    ///   - timeout: How long open without a heading is too long.
    ///   - selection: What the source takes, named in the reason when it is not everything.
    /// - Returns: The reason, or `nil` when there is nothing (more) to say.
    package mutating func silence(at now: ContinuousClock.Instant, timeout: Duration, selection: NMEASentenceSelection) -> String? {
        guard let openedAt, !hasHeading, !isReported, now - openedAt >= timeout else { return nil }
        isReported = true
        let seconds = Double((now - openedAt).components.seconds) + Double((now - openedAt).components.attoseconds) / 1e18
        var reason = "open for \(String(format: "%.1f", seconds)) s without a heading: "
        if lines == 0 {
            reason += "nothing arrived"
        } else {
            let unit = isBus ? "frame" : "line"
            reason += "\(lines) \(unit)\(lines == 1 ? "" : "s"), none with a heading"
            let talkerNames = talkers.map { String(decoding: [UInt8($0 >> 8), UInt8($0 & 0xFF)], as: UTF8.self) }
            if !talkerNames.isEmpty { reason += "; talkers seen: \(talkerNames.joined(separator: ", "))" }
            if !types.isEmpty { reason += "; \(isBus ? "seen" : "sentences seen"): \(types.joined(separator: ", "))" }
        }
        if !selection.isAll { reason += " (this source takes \(selection); \(takenLines) of them)" }
        return reason
    }
}
