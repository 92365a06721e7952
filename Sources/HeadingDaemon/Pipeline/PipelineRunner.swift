// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import Synchronization

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
                let (urn, note) = SignalKIdentity.kept(in: ProcessInfo.processInfo.environment["STATE_DIRECTORY"])
                if let note { logger.notice("\(note)") }
                kept = urn
                return urn
            }
        }
        while true {
            let loader = loader
            let shutdown = shutdown
            let reloader = ConfigurationReloader(
                hangups: hangups, notifySocket: notifySocket, endGroup: { shutdown.endRunningGroup() }
            ) { () throws(ConfigurationError) in
                try loader.load().settings
            }
            let pipeline = HeadingPipeline(settings: current, headingLimit: headingLimit, signalKSelf: identity(), logger: logger)
            do {
                try await pipeline.run(reloader: reloader, notifySocket: notifySocket, shutdown: shutdown, logger: logger)
            } catch let error as any OutputOpenError {
                LineWriter.standardError.write("headingd: \(error)", priority: .error)
                return .outputUnavailable
            }
            guard let next = reloader.pendingSettings, !shutdown.isRequested else { return pipeline.exitStatus(strict: current.replayStrict) }
            current = next
        }
    }
}
