// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import ServiceLifecycle

/// Ends headingd when its finite replays, all the sources there are, end: once all of them have,
/// it asks for the shutdown, then waits for its own turn to stop.
struct ReplayWatcher: Service {
    /// The replays watched.
    let sources: [ReplayHeadingSource]
    /// Called once every replay has read its file or failed to, unless one was stopped (by the
    /// shutdown itself).
    let whenAllEnded: @Sendable () -> Void

    /// Waits for the replays, then for the group's shutdown to reach this service.
    ///
    /// It never returns on its own: a service that returns while the group shuts down for another
    /// reason — the heading log's `--count` reached while the replay reads its last lines — is a
    /// failure to ServiceLifecycle (headingd exited 1 when a flat-out replay ended in that window).
    func run() async {
        var wasStopped = false
        for source in sources where await source.waitUntilFinished().outcome == .stopped { wasStopped = true }
        if !wasStopped { whenAllEnded() }
        try? await gracefulShutdown()
    }
}
