// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import ServiceLifecycle

/// Ends headingd when its finite sources, all the sources there are, end: replays, and standard
/// input (`stdin:`, as in `cat log.nmea | headingd --source stdin:`). Once all of them have ended,
/// it asks for the shutdown, then waits for its own turn to stop.
struct ReplayWatcher: Service {
    /// Each finite source's wait: `true` when it ended on its own (the file read, standard input
    /// at its end), `false` when it was stopped (by the shutdown itself).
    let endings: [@Sendable () async -> Bool]
    /// Called once every source has ended on its own.
    let whenAllEnded: @Sendable () -> Void

    /// Watches replays and standard-input sources.
    /// - Parameters:
    ///   - sources: The pipeline's sources; only replays and `stdin:` streams are watched.
    ///   - whenAllEnded: Called once all of them have ended on their own.
    init(sources: [any HeadingSource], whenAllEnded: @escaping @Sendable () -> Void) {
        endings = sources.compactMap(Self.ending(of:))
        self.whenAllEnded = whenAllEnded
    }

    /// The wait for a finite source's end, or `nil` for a source that does not end on its own.
    static func ending(of source: any HeadingSource) -> (@Sendable () async -> Bool)? {
        if let replay = source as? ReplayHeadingSource {
            return { await replay.waitUntilFinished().outcome != .stopped }
        }
        if let stream = source as? StreamHeadingSource, stream.feed.configuration.endpoint.transport == .standardInput {
            let feed = stream.feed
            return { await feed.waitUntilEnded() }
        }
        return nil
    }

    /// Waits for the sources, then for the group's shutdown to reach this service.
    ///
    /// It never returns on its own: a service that returns while the group shuts down for another
    /// reason — the heading log's `--count` reached while the replay reads its last lines — is a
    /// failure to ServiceLifecycle (headingd exited 1 when a flat-out replay ended in that window).
    func run() async {
        var wasStopped = false
        for ending in endings where await !ending() { wasStopped = true }
        if !wasStopped { whenAllEnded() }
        try? await gracefulShutdown()
    }
}
