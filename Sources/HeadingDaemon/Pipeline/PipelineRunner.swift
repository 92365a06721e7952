// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Logging
import Synchronization

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// Runs one ``HeadingPipeline`` per configuration: a SIGHUP with a valid configuration ends the
/// running pipeline and starts the next with the new settings; shutdown or the end of the replays
/// ends the last one, and its replays decide the exit status.
struct PipelineRunner: Sendable {
    /// Loads every configuration layer again, on SIGHUP.
    let loader: SettingsLoader
    /// Ends each run after this many headings (`--count`).
    let headingLimit: Int?
    /// SIGTERM or SIGINT: ends the running pipeline, and no other starts.
    let shutdown: ShutdownRequest
    /// SIGHUP: read the configuration again.
    let hangups: HangupSignals
    /// The services' logger.
    let logger: Logger

    /// Runs pipelines from `settings` on until headingd is done.
    /// - Parameter settings: The first pipeline's settings.
    /// - Returns: The exit status the last pipeline decided.
    func run(_ settings: DaemonSettings) async throws -> ExitStatus {
        let notifySocket = NotifySocket.fromEnvironment()
        var current = settings
        // The Signal K identity kept in the state directory: decided once, the same across reloads.
        let keptIdentity = Mutex<String?>(nil)
        let logger = logger
        let identity = {
            keptIdentity.withLock { kept in
                if let kept { return kept }
                let (urn, note, damage) = SignalKIdentity.kept(in: .process)
                if let damage { logger.error("\(damage)") }
                if let note { logger.notice("\(note)") }
                kept = urn
                return urn
            }
        }
        // One set of metrics for the process: counters only grow, across reloads.
        let metrics = HeadingMetrics(version: Headingd.version)
        let board = StatusBoard(version: Headingd.version)
        // Every consumer but the stdout log hears the processor through one typed stage (the fan-out);
        // the stdout log observes the notification center, which the library promises its users.
        let fanOut = HeadingFanOut()
        // The outputs outlive a reload when their settings do not change.
        // The NMEA 2000 buses: the output's node and the sources on its bus share one presence there.
        let buses = NMEA2000Buses()
        let outputs = OutputSet(metrics: metrics, status: board, fanOut: fanOut, buses: buses, logger: logger)
        var isReload = false
        while true {
            let loader = loader
            let shutdown = shutdown
            let reloader = ConfigurationReloader(
                hangups: hangups, notifySocket: notifySocket, endGroup: { shutdown.endRunningGroup() },
                reloaded: { metrics.reloaded(succeeded: $0) }
            ) { () throws(ConfigurationError) in
                try loader.load().settings
            }
            // Outputs listen before anything runs: an address in use ends headingd with no heading sent.
            do {
                try await outputs.apply(current, signalKSelf: identity, isReload: isReload)
            } catch let error as OutputOpenError {
                LineWriter.standardError.write("headingd: \(error)", priority: .error)
                await outputs.stopAll()
                return .outputUnavailable
            }
            let pipeline = HeadingPipeline(
                settings: current, headingLimit: headingLimit, shutdown: shutdown, fanOut: fanOut, buses: buses, logger: logger
            )
            // Metrics only when they are served: otherwise nothing on the heading path.
            let processor = pipeline.processor
            let sources = processor.sources.indices
            let counting = current.metricsEnabled ? sources.map { metrics.count(sourceAt: $0, of: processor) } : []
            let observation = current.metricsEnabled ? metrics.observe(fanOut) : nil
            // The status board likewise, only when the status service runs.
            if current.statusEnabled {
                let calibrations = processor.sources.reduce(into: [String: any CalibrationReporting]()) { all, source in
                    if let reporting = source as? any CalibrationReporting { all[source.name] = reporting }
                }
                board.configure(
                    sources: processor.sources.map(\.name), staleAfter: current.staleAfter, calibrations: calibrations,
                    deviations: pipeline.deviationLearners
                )
            }
            let statusCounting = current.statusEnabled ? sources.map { board.count(sourceAt: $0, of: processor) } : []
            let statusObservation = current.statusEnabled ? board.observe(fanOut) : nil
            do {
                try await pipeline.run(reloader: reloader, notifySocket: notifySocket, shutdown: shutdown, logger: logger)
            } catch {
                await outputs.stopAll()
                throw error
            }
            counting.forEach { $0.cancel() }
            observation?.cancel()
            statusCounting.forEach { $0.cancel() }
            statusObservation?.cancel()
            guard let next = reloader.pendingSettings, !shutdown.isRequested else {
                // Stopped after the sources: the last headings reach them.
                await outputs.stopAll()
                return pipeline.exitStatus(strict: current.replayStrict)
            }
            current = next
            isReload = true
        }
    }
}
