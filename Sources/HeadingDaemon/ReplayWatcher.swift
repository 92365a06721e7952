// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import ServiceLifecycle

/// Ends headingd when a finite replay ends: a service that returns when the replay does.
struct ReplayWatcher: Service {
    /// The replay watched.
    let source: ReplayHeadingSource

    /// Returns when the replay has read its file, failed to, or been stopped.
    func run() async {
        _ = await source.waitUntilFinished()
    }
}
