// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import HeadingKitGPSD
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// headingd's composition root: from one configuration it builds sources → proxies → processor →
/// bridge → consumers, and runs them as one `ServiceGroup`. A reload builds a new pipeline. The
/// network and serial outputs are not in it: they hear `NotificationCenter.heading` too, and an
/// ``OutputSet`` keeps them across reloads.
///
/// ```
/// SourceSpecification.makeSource ─▶ HeadingProxy (one per source) ─▶ HeadingProcessor
///   ─▶ HeadingNotificationBridge ─▶ NotificationCenter.heading ─▶ StdoutHeadingLog, SystemdNotifier
/// ```
struct HeadingPipeline {
    /// The settings the pipeline was built from.
    let settings: DaemonSettings
    /// The sources, best first.
    let sources: [any HeadingSource]
    /// One proxy per source, in the same order.
    let proxies: [HeadingProxy]
    /// Chooses among the proxies and corrects their headings.
    let processor: HeadingProcessor
    /// Posts the processor's events on `NotificationCenter.heading`, which the stdout log (and a
    /// library user) observes.
    let bridge: HeadingNotificationBridge
    /// Where every other consumer hears the processor: the process's fan-out, attached while this runs.
    let fanOut: HeadingFanOut
    /// Prints headings on standard output, and faults and notices on standard error.
    let log: StdoutHeadingLog
    /// The deviation cards learned while it runs (`deviation=learn`), by source name.
    let deviationLearners: [String: DeviationLearner]

    /// Builds the pipeline; nothing runs until ``run(reloader:notifySocket:logger:)``.
    /// - Parameters:
    ///   - settings: The effective settings.
    ///   - headingLimit: Ends the run after this many headings (`--count`).
    ///   - logger: The proxies' logger.
    ///   - shutdown: Asked for when the heading log ends (`--count` reached, or output failed).
    ///   - fanOut: Where the consumers other than the stdout log hear the processor.
    ///   - buses: The process's NMEA 2000 buses: a source on the output node's bus hides its frames.
    init(
        settings: DaemonSettings, headingLimit: Int?, shutdown: ShutdownRequest, fanOut: HeadingFanOut = HeadingFanOut(),
        buses: NMEA2000Buses = NMEA2000Buses(), logger: Logger
    ) {
        self.settings = settings
        self.fanOut = fanOut
        var feeds: [NMEAStreamEndpoint: NMEAFeed] = [:]
        sources = settings.sources.map { $0.makeSource(settings: settings, feeds: &feeds, buses: buses, logger: logger) }
        // The heading filter is the processor's: filtered in a proxy, a steady heading would look stale.
        // Delivery is immediate, whatever thread builds the pipeline: no hop per heading, and the
        // consumers behind the center are thread-safe.
        proxies = sources.map { HeadingProxy(source: $0, delivery: .immediate, logger: logger) }
        processor = HeadingProcessor(
            inputs: Array(zip(proxies, settings.sources.map(\.installation))), configuration: settings.processorConfiguration,
            delivery: .immediate
        )
        bridge = HeadingNotificationBridge(processor: processor, center: .heading)
        var learners: [String: DeviationLearner] = [:]
        for (index, specification) in settings.sources.enumerated() where specification.learnsDeviation {
            let name = sources[index].name
            learners[name] = DeviationLearner(
                source: name, index: index, processor: processor, position: settings.position,
                stateDirectory: .process, logger: logger
            )
        }
        deviationLearners = learners
        // Only a lone flat-out replay batches its output; a live source beside it must not wait for a block.
        let isFlatOutReplay = sources.count == 1 && sources.first is ReplayHeadingSource && settings.replaySpeed.speed == .flatOut
        log = StdoutHeadingLog(
            center: .heading, format: settings.format, limit: headingLimit, batchesOutput: isFlatOutReplay,
            whenEnded: { shutdown.request() }
        )
    }

    /// The replay sources among the sources.
    var replays: [ReplayHeadingSource] { sources.compactMap { $0 as? ReplayHeadingSource } }

    /// Runs every stage until shutdown, the end of the replays, or a reload.
    /// - Parameters:
    ///   - reloader: Ends the run when SIGHUP brings a valid configuration.
    ///   - notifySocket: systemd's socket, when under systemd.
    ///   - shutdown: SIGTERM or SIGINT, which ends the run gracefully (the group traps no signals).
    ///   - logger: The service group's logger.
    func run(reloader: ConfigurationReloader, notifySocket: NotifySocket?, shutdown: ShutdownRequest, logger: Logger) async throws {
        defer { bridge.cancel() }
        // After the bridge: the stdout log hears each event first, as it did when every consumer observed the center.
        let stage = fanOut.attach(processor)
        defer { stage?.cancel() }
        processor.start()
        defer { processor.stop() }
        // Before the proxies are enabled (a service of the group): the learners hear every heading.
        let learning = deviationLearners.values.flatMap { $0.attach() }
        defer { learning.forEach { $0.cancel() } }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services(reloader: reloader, notifySocket: notifySocket, shutdown: shutdown),
                logger: logger
            )
        )
        try await shutdown.run(group)
        for case let gpsd as GPSDHeadingSource in sources { await gpsd.waitUntilStopped() }
        for case let stream as StreamHeadingSource in sources { await stream.feed.waitUntilStopped() }
    }

    /// The consumers and the stages that run, in start order; they shut down in reverse, so the
    /// proxies stop their sources first.
    private func services(
        reloader: ConfigurationReloader, notifySocket: NotifySocket?, shutdown: ShutdownRequest
    ) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            // It asks for shutdown at its end (--count) and returns only when the group tells it to.
            .init(service: log, serviceName: "heading log"),
            // It ends its group itself (a reload) and returns only when the group tells it to.
            .init(service: reloader, serviceName: "configuration reloader"),
        ]
        // Replays and standard input end headingd when they are all there is and all have ended;
        // beside a live source they just stop, and nothing watches them.
        if sources.allSatisfy({ ReplayWatcher.ending(of: $0) != nil }) {
            services.append(.init(service: ReplayWatcher(sources: sources, whenAllEnded: { shutdown.request() }), serviceName: "replay"))
        }
        let notifier = notifySocket.map { socket in
            SystemdNotifier(
                socket: socket, center: fanOut, sourceName: sources.map(\.name).joined(separator: ", "),
                watchdogInterval: SystemdNotifier.watchdogIntervalFromEnvironment(), isReloading: { reloader.isReloading }
            )
        }
        for case let gpsd as GPSDHeadingSource in sources {
            services.append(
                .init(service: ConnectionStatusLog(source: gpsd, notifier: notifier), serviceName: "gpsd connection status \(gpsd.name)")
            )
        }
        for proxy in proxies {
            services.append(.init(service: HeadingProxyService(proxy: proxy), serviceName: "heading proxy \(proxy.source.name)"))
        }
        // Start-up's code pages go back to the kernel once the sources and outputs run.
        services.append(.init(service: StartupPageRelease(delay: .seconds(2)), serviceName: "start-up page release"))
        // Last: started after the proxies are enabled (READY=1), and the first to hear of shutdown (STOPPING=1).
        if let notifier { services.append(.init(service: notifier, serviceName: "systemd notifier")) }
        return services
    }

    /// Prints each replay's summary on standard error and decides the exit status from how the
    /// replays ended and whether the headings could be written: the worst wins.
    /// - Parameter strict: Whether a skipped line or an unsupported format fails the run (`--strict`).
    /// - Returns: ``ExitStatus/success``, ``ExitStatus/dataError``, ``ExitStatus/noInput`` or
    ///   ``ExitStatus/outputError``.
    func exitStatus(strict: Bool) -> ExitStatus {
        var status = log.writeError == nil ? ExitStatus.success : .outputError
        for replay in replays {
            let summary = replay.summary
            let path = replay.configuration.path
            LineWriter.standardError.write("headingd: replay of \(path): \(summary)")
            switch summary.outcome {
            case .unavailable:
                status = max(status, .noInput)
            case .unsupported where strict:
                LineWriter.standardError.write("headingd: --strict: \(path) is in an unsupported format", priority: .error)
                status = max(status, .dataError)
            case .running, .completed, .stopped, .unsupported:
                break
            }
            if strict, summary.skippedLines > 0 {
                LineWriter.standardError.write("headingd: --strict: \(summary.skippedLines) of the lines of \(path) were skipped", priority: .error)
                status = max(status, .dataError)
            }
        }
        return status
    }
}
