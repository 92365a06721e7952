// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import ServiceLifecycle

/// Ends headingd when its finite replays end: a service that returns when all of them have.
struct ReplayWatcher: Service {
    /// The replays watched.
    let sources: [ReplayHeadingSource]

    /// Returns when every replay has read its file or failed to. A replay that was stopped was
    /// stopped by the shutdown itself (the proxies, later in the group, stop their sources first):
    /// then the watcher waits for its own turn to shut down, because a service that returns before
    /// the group has told it to is a failure to ServiceLifecycle (headingd would exit 1).
    func run() async {
        var wasStopped = false
        for source in sources where await source.waitUntilFinished().outcome == .stopped { wasStopped = true }
        if wasStopped { try? await gracefulShutdown() }
    }
}
