// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import ServiceLifecycle

/// Ends headingd when its finite replays end: a service that returns when all of them have.
struct ReplayWatcher: Service {
    /// The replays watched.
    let sources: [ReplayHeadingSource]

    /// Returns when every replay has read its file, failed to, or been stopped.
    func run() async {
        for source in sources { _ = await source.waitUntilFinished() }
    }
}
