// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps the heading's history (``HeadingHistory``) from the center: the first heading of each
/// second of the headings' own time, and every fault, recovery and change of source. Written a
/// second at a time on a queue of its own, never on the heading path; at most
/// ``maximumPending`` samples wait (a disk that stalls loses the oldest, counted and logged).
final class HistoryRecorder: Service, Sendable {
    /// The most samples waiting for the disk.
    static let maximumPending = 100_000

    private struct Pending: Sendable {
        var samples: [HeadingHistory.Sample] = []
        var events: [HeadingHistory.Event] = []
        var lastSecond: Double?
        var isFlushScheduled = false
        var dropped = 0
    }

    private let history: HeadingHistory
    private let center: any HeadingEventCenter
    private let logger: Logger
    private let pending = Mutex(Pending())
    private let queue = DispatchQueue(label: "history")
    /// The subscription to the center, made at once: the outputs are made before the sources
    /// start, while ``run()`` starts some time later, and the first second of a replay at ×100
    /// (10 ms) once went by before it did, missing from the history.
    private let observation = HeadingSubscriptionSlot()

    /// A recorder, hearing the center from now on.
    init(history: HeadingHistory, center: any HeadingEventCenter, logger: Logger) {
        self.history = history
        self.center = center
        self.logger = logger
        observation.subscribe(to: center, latestOnly: true) { [weak self] in self?.record($0) }
    }

    /// Records until shutdown, then writes what waits.
    func run() async throws {
        try? await gracefulShutdown()
        observation.cancel()
        queue.sync { flush() }
    }

    /// Records one event.
    func record(_ event: HeadingEvent) {
        let scheduling = pending.withLock { pending -> Bool in
            switch event {
            case .heading(let heading):
                let time = heading.timestamp.timeIntervalSince1970
                let second = time.rounded(.down)
                guard pending.lastSecond != second else { return false }
                pending.lastSecond = second
                let radians = { (degrees: Double?) in degrees.map { $0 * .pi / 180 } }
                pending.samples.append(
                    HeadingHistory.Sample(time: time, headingTrue: radians(heading.trueHeading), headingMagnetic: radians(heading.magneticHeading), source: heading.source)
                )
                if pending.samples.count > Self.maximumPending {
                    let excess = pending.samples.count - Self.maximumPending
                    pending.samples.removeFirst(excess)
                    pending.dropped += excess
                }
            case .fault(let fault):
                pending.events.append(
                    HeadingHistory.Event(time: fault.timestamp.timeIntervalSince1970, kind: "fault", source: fault.source, code: fault.code.rawValue, message: fault.reason)
                )
            case .notice(let notice) where notice.code == .recovered || notice.code == .sourceChanged:
                pending.events.append(
                    HeadingHistory.Event(
                        time: notice.timestamp.timeIntervalSince1970, kind: notice.code.rawValue, source: notice.source, code: notice.code.rawValue,
                        message: notice.reason
                    )
                )
            default:
                return false
            }
            defer { pending.isFlushScheduled = true }
            return !pending.isFlushScheduled
        }
        if scheduling { queue.asyncAfter(deadline: .now() + 1) { [self] in flush() } }
    }

    /// Writes what waits (on the queue).
    private func flush() {
        let (samples, events, dropped) = pending.withLock { pending in
            defer {
                pending.samples = []
                pending.events = []
                pending.dropped = 0
                pending.isFlushScheduled = false
            }
            return (pending.samples, pending.events, pending.dropped)
        }
        if dropped > 0 { logger.warning("history: the disk fell behind: \(dropped) samples were dropped") }
        guard !samples.isEmpty || !events.isEmpty else { return }
        do {
            try history.write(samples: samples, events: events)
        } catch {
            logger.error("history: cannot write \(samples.count) samples and \(events.count) events: \(error)")
        }
    }
}
