// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD
import Prometheus
import Synchronization

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// headingd's Prometheus metrics (swift-prometheus' registry), for `/metrics`: one per process,
/// kept across reloads so that counters only grow.
///
/// Names follow Prometheus' conventions (base units as suffixes, `_total` counters, `_info` and
/// `_up` gauges, timestamps rather than ages):
///
/// | metric | type | labels |
/// |---|---|---|
/// | `headingd_build_info` | gauge, 1 | `version` |
/// | `headingd_source_up` | gauge: 1 when the source's last word was a heading, 0 when it was a fault (or before its first heading) | `source` |
/// | `headingd_source_selected` | gauge: 1 for the source steering | `source` |
/// | `headingd_source_last_heading_timestamp_seconds` | gauge, Unix time | `source` |
/// | `headingd_headings_total` | counter: the headings each source delivered | `source` |
/// | `headingd_source_lines_total` | counter: lines read (a CAN frame is one), by result: `ok`, `malformed`, `checksum`, `out_of_range`, `unsupported` | `source`, `result` |
/// | `headingd_faults_total` | counter | `source`, `code` |
/// | `headingd_fault_active` | gauge: 1 from a fault to its source's recovery | `source`, `code` |
/// | `headingd_reloads_total` | counter | `result` (`success`, `failure`) |
/// | `headingd_heading_latency_seconds` | histogram: from the bytes' read (a live source's reception timestamp) to the consumers (the fan-out's, after the center's observers), for the heading of each delivery from a live NMEA stream, CAN bus or gpsd | |
/// | `headingd_heading_true_degrees`, `headingd_heading_magnetic_degrees` | gauge: the heading headingd gives | |
/// | `headingd_source_calibrated` | gauge: 1 when a magnetometer's calibration is in force, 0 when it has none (IIO sources only) | `source` |
/// | `headingd_source_calibration_error_degrees` | gauge: the heading error the calibration's fit amounts to | `source` |
/// | `headingd_source_calibration_timestamp_seconds` | gauge, Unix time: when the calibration in force was made | `source` |
///
/// Each network output adds its own (``OutputMetrics``, labelled `output`).
///
/// The heading gauges are for display only: Prometheus averages and interpolates them, and the
/// mean of 359° and 1° is 180°. Alert on health (`headingd_source_up`), never on an angle.
///
/// Cost on the heading path, per batch (a live heading is a batch of one): one atomic add for the
/// source's headings and three atomic stores (its timestamp, `up`, and a heading gauge's pair);
/// the source steering is compared under a lock once per batch. Libraries'
/// own metrics (Hummingbird's) are left out: swift-metrics is not bootstrapped.
final class HeadingMetrics: Sendable {
    /// The registry the exposition is written from.
    let registry = PrometheusCollectorRegistry()

    private struct SourceMetrics: Sendable {
        let up: Gauge
        let selected: Gauge
        let lastHeading: Gauge
        let headings: Counter
    }

    /// A source whose decoder counts its lines, and the counts already added to the counters.
    private struct LineSource: Sendable {
        let source: any LineCountingSource
        var added = LineCounts()
    }

    private struct State: Sendable {
        var sources: [String: SourceMetrics] = [:]
        /// The running pipeline's sources that count lines, by name.
        var lineSources: [String: LineSource] = [:]
        /// Active faults, by source and code.
        var activeFaults: [String: [String: Gauge]] = [:]
        var selectedSource: String?
        /// The sources whose headings carry their bytes' reception time.
        var liveSources: Set<String> = []
        /// The running pipeline's sources that state a calibration, by name: read at each scrape.
        var calibrationSources: [String: any CalibrationReporting] = [:]
    }

    /// The latency histogram's buckets: 50 µs to 1 s.
    static let latencyBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
    ]

    private let state = Mutex(State())
    private let trueHeading: Gauge
    private let magneticHeading: Gauge
    private let reloadSuccesses: Counter
    private let reloadFailures: Counter
    private let latency: DurationHistogram

    /// Makes the metrics, with `headingd_build_info` for `version`.
    init(version: String) {
        registry.gauge(name: "headingd_build_info", labels: [("version", version)], help: "headingd's version; always 1").set(to: 1.0)
        trueHeading = registry.gauge(
            name: "headingd_heading_true_degrees",
            help: "The heading headingd gives, from true north; for display only (never average or alert on an angle)"
        )
        magneticHeading = registry.gauge(
            name: "headingd_heading_magnetic_degrees",
            help: "The heading headingd gives, from magnetic north; for display only (never average or alert on an angle)"
        )
        reloadSuccesses = registry.counter(name: "headingd_reloads_total", labels: [("result", "success")], help: "SIGHUP reloads, by result")
        reloadFailures = registry.counter(name: "headingd_reloads_total", labels: [("result", "failure")], help: "SIGHUP reloads, by result")
        latency = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                metricName: "headingd_heading_latency_seconds", unitName: "",
                helpText: "From a live heading's bytes read to headingd's consumers"
            ),
            buckets: Self.latencyBuckets
        )
    }

    /// The metrics of the output labelled `output` (the same object for the same name, across reloads).
    func output(_ output: String) -> OutputMetrics {
        outputs.withLock { outputs in
            if let metrics = outputs[output] { return metrics }
            let metrics = OutputMetrics(output: output, registry: registry)
            outputs[output] = metrics
            return metrics
        }
    }

    private let outputs = Mutex<[String: OutputMetrics]>([:])

    /// The exposition, in Prometheus' text format (version 0.0.4): the line counters brought up
    /// to date first (the decoders count in plain integers; they are read here, not per line).
    func exposition() -> [UInt8] {
        addLines()
        setCalibrations()
        return registry.emitToBuffer()
    }

    /// Sets each magnetometer's calibration gauges from what its source states now.
    private func setCalibrations() {
        let sources = state.withLock { $0.calibrationSources }
        for (name, source) in sources {
            guard let status = source.calibrationStatus else { continue }
            let labels = [("source", name)]
            registry.gauge(name: "headingd_source_calibrated", labels: labels, help: "1 when a magnetometer's calibration is in force, 0 when it has none")
                .set(to: status.state == .calibrated ? 1.0 : 0.0)
            guard let calibration = status.calibration else { continue }
            registry.gauge(name: "headingd_source_calibration_error_degrees", labels: labels, help: "The heading error the calibration's fit amounts to")
                .set(to: calibration.headingError)
            registry.gauge(name: "headingd_source_calibration_timestamp_seconds", labels: labels, help: "When the calibration in force was made")
                .set(to: calibration.date.timeIntervalSince1970)
        }
    }

    /// Adds what each line-counting source read since the last time to its counters.
    private func addLines(forgetting forgotten: ObjectIdentifier? = nil) {
        let deltas = state.withLock { state -> [(String, LineCounts, LineCounts)] in
            var deltas: [(String, LineCounts, LineCounts)] = []
            for (name, entry) in state.lineSources {
                let now = entry.source.lineCounts
                deltas.append((name, now, entry.added))
                state.lineSources[name]?.added = now
                if let forgotten, ObjectIdentifier(entry.source) == forgotten { state.lineSources[name] = nil }
            }
            return deltas
        }
        for (name, now, added) in deltas {
            for ((result, count), (_, before)) in zip(now.byResult, added.byResult) where count > before {
                lines(name, result).increment(by: count - before)
            }
        }
    }

    private func lines(_ source: String, _ result: String) -> Counter {
        registry.counter(
            name: "headingd_source_lines_total", labels: [("source", source), ("result", result)],
            help: "Lines the source read (a CAN frame counts as one), by result"
        )
    }

    /// The `Content-Type` of ``exposition()``, which Prometheus 3 requires.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Counts a reload.
    /// - Parameter succeeded: Whether the new configuration was valid (and applied).
    func reloaded(succeeded: Bool) {
        (succeeded ? reloadSuccesses : reloadFailures).increment()
    }

    /// Counts the headings of the processor's source at `index`, per batch, until the returned
    /// value is cancelled (the pipeline's end).
    func count(sourceAt index: Int, of processor: HeadingProcessor) -> AnyCancellable {
        let heard = processor.sources[index]
        let name = heard.name
        let metrics = source(name)
        // Live sources stamp headings with the time their bytes were read; a replay's carry the recording's.
        if heard is StreamHeadingSource || heard is GPSDHeadingSource {
            state.withLock { _ = $0.liveSources.insert(name) }
        }
        if let reporting = heard as? any CalibrationReporting {
            state.withLock { $0.calibrationSources[name] = reporting }
            let stage = count(index, of: processor, metrics)
            return AnyCancellable { [self] in
                stage.cancel()
                state.withLock { state in
                    if state.calibrationSources[name] === reporting { state.calibrationSources[name] = nil }
                }
            }
        }
        if let counting = heard as? any LineCountingSource {
            // Each result shows from the start, at 0, so that a rate of malformed lines has a series.
            for (result, _) in LineCounts().byResult { _ = lines(name, result) }
            state.withLock { $0.lineSources[name] = LineSource(source: counting) }
            let stage = count(index, of: processor, metrics)
            return AnyCancellable { [self] in
                stage.cancel()
                addLines(forgetting: ObjectIdentifier(counting))  // its last lines counted, then let go
            }
        }
        return count(index, of: processor, metrics)
    }

    private func count(_ index: Int, of processor: HeadingProcessor, _ metrics: SourceMetrics) -> AnyCancellable {
        processor.addSourceStage(at: index, { event in
            guard case .heading(let heading) = event else { return }
            metrics.headings.increment()
            metrics.lastHeading.set(to: heading.timestamp.timeIntervalSince1970)
            metrics.up.set(to: 1.0)
        }, batch: { events in
            // Counted without copying a heading; only the last one's timestamp is read.
            var count: Int64 = 0
            var last = -1
            for index in events.indices {
                if case .heading = events[index] {
                    count += 1
                    last = index
                }
            }
            guard last >= 0, let heading = events[last].heading else { return }
            metrics.headings.increment(by: count)
            metrics.lastHeading.set(to: heading.timestamp.timeIntervalSince1970)
            metrics.up.set(to: 1.0)
        })
    }

    /// Records what the processor delivers (through the fan-out): the heading given, faults, recoveries, the source
    /// steering. Per notification (a flat-out replay's batch is one): only its last heading sets
    /// the gauges, and the source steering is looked at once.
    func observe(_ center: any HeadingEventCenter) -> any HeadingEventSubscription {
        center.consume(latestOnly: true) { [self] in record($0) }
    }

    /// Records one event.
    func record(_ event: HeadingEvent) {
        switch event {
        case .heading(let heading):
            if let value = heading.trueHeading { trueHeading.set(to: value) }
            if let value = heading.magneticHeading { magneticHeading.set(to: value) }
            let source = heading.source
            let (changed, live) = state.withLock { ($0.selectedSource != source, $0.liveSources.contains(source)) }
            if changed { select(source) }
            if live {
                let seconds = Date().timeIntervalSince(heading.timestamp)
                if seconds >= 0, seconds < 60 { latency.record(.nanoseconds(Int64(seconds * 1e9))) }  // a clock step is no latency
            }
        case .fault(let fault):
            let source = fault.source
            let code = fault.code.rawValue
            let metrics = self.source(source)
            metrics.up.set(to: 0.0)
            // The registry returns the collector it already has for a name and labels.
            let labels = [("source", source), ("code", code)]
            // A flood's summary counts every line it stands for.
            registry.counter(name: "headingd_faults_total", labels: labels, help: "Faults, by source and code").increment(by: Int64(fault.occurrences))
            let active = registry.gauge(name: "headingd_fault_active", labels: labels, help: "1 from a fault until its source recovers")
            active.set(to: 1.0)
            // Kept by source, for the source's recovery to clear.
            state.withLock { $0.activeFaults[source, default: [:]][code] = active }
        case .notice(let notice):
            switch notice.code {
            case .recovered:
                clearFaults(of: notice.source)
                source(notice.source).up.set(to: 1.0)
            case .sourceChanged:
                select(notice.source)
            default:
                break
            }
        case .authorizationChanged:
            break
        }
    }

    private func select(_ source: String) {
        let previous = state.withLock { state -> String? in
            defer { state.selectedSource = source }
            return state.selectedSource
        }
        if let previous, previous != source { self.source(previous).selected.set(to: 0.0) }
        self.source(source).selected.set(to: 1.0)
    }

    private func clearFaults(of source: String) {
        let gauges = state.withLock { state in
            defer { state.activeFaults[source] = [:] }
            return Array((state.activeFaults[source] ?? [:]).values)
        }
        for gauge in gauges { gauge.set(to: 0.0) }
    }

    private func source(_ name: String) -> SourceMetrics {
        state.withLock { state in
            if let metrics = state.sources[name] { return metrics }
            let labels = [("source", name)]
            let metrics = SourceMetrics(
                up: registry.gauge(name: "headingd_source_up", labels: labels, help: "1 when the source's last word was a heading, 0 when it was a fault"),
                selected: registry.gauge(name: "headingd_source_selected", labels: labels, help: "1 for the source whose heading headingd gives"),
                lastHeading: registry.gauge(
                    name: "headingd_source_last_heading_timestamp_seconds", labels: labels,
                    help: "When the source's last heading was taken, in seconds since the Unix epoch"
                ),
                headings: registry.counter(name: "headingd_headings_total", labels: labels, help: "Headings the source delivered")
            )
            state.sources[name] = metrics
            return metrics
        }
    }
}
