// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Synchronization

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// What the status page, `/status.json` and `headingd status` show: kept from the center's
/// events (the heading given, faults, recoveries, the source steering) and each source's
/// headings (counted per batch at its proxy), one per process so that counts survive a reload.
///
/// Cost on the heading path: one lock a batch at each proxy and one at the center (a live heading
/// is a batch of one). The page and `headingd status` read a ``report(at:)`` made under the lock.
final class StatusBoard: Sendable {
    private struct SourceState: Sendable {
        var state = "waiting"
        var stateSince: Date
        var lastHeadingAt: Date?
        var headings: Int64 = 0
        var errors: Int64 = 0
        var lastFault: StatusReport.Fault?
        /// Headings counted in the current whole second, and in the one before.
        var windowStart: Date
        var windowCount: Int64 = 0
        var lastWindowRate: Double = 0
    }

    private struct State: Sendable {
        var order: [String] = []
        var sources: [String: SourceState] = [:]
        var active: [StatusReport.Fault] = []
        var steering: String?
        var heading: Heading?
        var headingAt: Date?
        var staleAfter: Double = 2
        /// The sources that state a calibration, by name.
        var calibrations: [String: any CalibrationReporting] = [:]
        var deviations: [String: DeviationLearner] = [:]
    }

    /// The fault codes that say a source delivers nothing until it recovers; the others
    /// (malformed, out-of-range or unsupported input) are counted as errors only.
    static let outageCodes: Set<String> = [
        HeadingFault.Code.sourceUnavailable, .deviceLost, .stale, .permissionDenied, .disagreement,
        .magneticModelOutdated, .calibrationNeeded,
    ].reduce(into: []) { $0.insert($1.rawValue) }

    private let state: Mutex<State>
    private let startedAt: Date
    private let version: String
    /// The outputs that run, and their counts (``OutputSet`` tells them).
    private let outputs = Mutex<@Sendable () -> [StatusReport.Output]>({ [] })

    /// - Parameters:
    ///   - version: headingd's version.
    ///   - startedAt: When the daemon started.
    init(version: String, startedAt: Date = Date()) {
        self.version = version
        self.startedAt = startedAt
        state = Mutex(State())
    }

    /// Where the report finds the outputs that run, with their counts.
    func setOutputs(_ provider: @escaping @Sendable () -> [StatusReport.Output]) {
        outputs.withLock { $0 = provider }
    }

    /// Starts a pipeline's run: its sources, in order, and its stale time. Sources that are no
    /// longer configured are forgotten; those that stay keep their counts.
    func configure(
        sources: [String], staleAfter: Double, calibrations: [String: any CalibrationReporting] = [:], deviations: [String: DeviationLearner] = [:],
        at now: Date = Date()
    ) {
        state.withLock { state in
            state.order = sources
            state.calibrations = calibrations
            state.deviations = deviations
            state.staleAfter = staleAfter
            state.sources = state.sources.filter { sources.contains($0.key) }
            for name in sources where state.sources[name] == nil {
                state.sources[name] = SourceState(stateSince: now, windowStart: now)
            }
            state.active.removeAll { !sources.contains($0.source) }
            if let steering = state.steering, !sources.contains(steering) { state.steering = nil }
        }
    }

    /// Counts the headings of the processor's source at `index`, per batch, until the returned
    /// value is cancelled.
    func count(sourceAt index: Int, of processor: HeadingProcessor) -> AnyCancellable {
        let name = processor.sources[index].name
        return processor.addSourceStage(at: index, { [self] event in
            if case .heading = event { delivered(1, by: name) }
        }, batch: { [self] events in
            var count: Int64 = 0
            for index in events.indices { if case .heading = events[index] { count += 1 } }
            if count > 0 { delivered(count, by: name) }
        })
    }

    /// Records what the processor delivers (through the fan-out), per delivery, until the returned value is cancelled.
    func observe(_ center: any HeadingEventCenter) -> any HeadingEventSubscription {
        center.consume(latestOnly: true) { [self] in record($0) }
    }

    private func delivered(_ count: Int64, by name: String, at now: Date = Date()) {
        state.withLock { state in
            guard var source = state.sources[name] else { return }
            source.headings += count
            source.lastHeadingAt = now
            let elapsed = now.timeIntervalSince(source.windowStart)
            if elapsed >= 1 {
                // A whole second (or more, when it went quiet) is over: its rate is the one shown.
                source.lastWindowRate = elapsed < 2 ? Double(source.windowCount) : 0
                source.windowStart = now
                source.windowCount = 0
            }
            source.windowCount += count
            if source.state != "healthy", !state.active.contains(where: { $0.source == name }) {
                source.state = "healthy"
                source.stateSince = now
            }
            state.sources[name] = source
        }
    }

    /// Records one event.
    func record(_ event: HeadingEvent, at now: Date = Date()) {
        state.withLock { state in
            switch event {
            case .heading(let heading):
                state.heading = heading
                state.headingAt = now
                state.steering = heading.source
            case .fault(let fault):
                let entry = StatusReport.Fault(
                    source: fault.source, code: fault.code.rawValue, reason: fault.reason, since: fault.timestamp.timeIntervalSince1970
                )
                if var source = state.sources[fault.source] {
                    source.errors += Int64(fault.occurrences)  // a flood's summary: every line it stands for
                    source.lastFault = entry
                    if Self.outageCodes.contains(entry.code) {
                        if source.state != "faulted" { source.stateSince = now }
                        source.state = "faulted"
                    }
                    state.sources[fault.source] = source
                }
                if Self.outageCodes.contains(entry.code) {
                    state.active.removeAll { $0.source == entry.source && $0.code == entry.code }
                    state.active.append(entry)
                }
            case .notice(let notice):
                switch notice.code {
                case .recovered:
                    state.active.removeAll { $0.source == notice.source }
                    if var source = state.sources[notice.source], source.state == "faulted" {
                        source.state = "healthy"
                        source.stateSince = now
                        state.sources[notice.source] = source
                    }
                case .sourceChanged:
                    state.steering = notice.source
                default:
                    break
                }
            case .authorizationChanged:
                break
            }
        }
    }

    /// The report now.
    func report(at now: Date = Date()) -> StatusReport {
        let outputs = outputs.withLock { $0 }()
        return state.withLock { state in
            let staleAfter = state.staleAfter
            let sources = state.order.compactMap { name -> StatusReport.Source? in
                guard let source = state.sources[name] else { return nil }
                var shown = source.state
                var since = source.stateSince
                if shown == "healthy", let last = source.lastHeadingAt, now.timeIntervalSince(last) > staleAfter {
                    shown = "stale"  // quiet for longer than stale_after, whether or not its fault has come yet
                    since = last
                }
                let quiet = source.lastHeadingAt.map { now.timeIntervalSince($0) } ?? .infinity
                let rate = quiet >= 1 ? 0 : (now.timeIntervalSince(source.windowStart) >= 1 ? Double(source.windowCount) : source.lastWindowRate)
                return StatusReport.Source(
                    name: name, state: shown, secondsInState: max(0, now.timeIntervalSince(since)), steering: state.steering == name,
                    headingsPerSecond: rate, headings: source.headings, errors: source.errors, lastFault: source.lastFault,
                    calibration: state.calibrations[name]?.calibrationStatus.map { StatusReport.Calibration($0, at: now) },
                    deviation: state.deviations[name]?.status
                )
            }
            let headingState: StatusReport.HeadingState
            if let heading = state.heading, let at = state.headingAt {
                let age = max(0, now.timeIntervalSince(at))
                headingState = StatusReport.HeadingState(
                    state: age > staleAfter ? "stale" : "ok", trueHeading: heading.trueHeading, magneticHeading: heading.magneticHeading,
                    magneticVariation: heading.magneticVariation, variationOrigin: heading.variationOrigin?.rawValue, source: heading.source,
                    timestamp: heading.timestamp.timeIntervalSince1970, ageSeconds: age
                )
            } else {
                headingState = StatusReport.HeadingState(state: "none", ageSeconds: max(0, now.timeIntervalSince(startedAt)))
            }
            return StatusReport(
                version: version, time: now.timeIntervalSince1970, startedAt: startedAt.timeIntervalSince1970,
                uptimeSeconds: max(0, now.timeIntervalSince(startedAt)), staleAfterSeconds: staleAfter, heading: headingState,
                sources: sources, faults: state.active, outputs: outputs
            )
        }
    }
}
