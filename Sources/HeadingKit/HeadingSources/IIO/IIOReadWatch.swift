// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// Which sysfs file a reader thread is reading, and since when, seen from another thread: a read
/// of an IIO attribute cannot be interrupted (an I²C transfer the bus holds, a driver that waits),
/// so the source's watchdog, `headingd scan` and `headingd calibrate` look here to say which file
/// has not answered, instead of waiting with it.
package final class IIOReadWatch: Sendable {
    private struct Read {
        var path: String
        var since: ContinuousClock.Instant
    }

    private let current = Mutex<Read?>(nil)

    /// How long one read of an attribute may take before it is a stall: 5 s, or three sample periods
    /// at a slower rate (ST's drivers sleep two sample periods a direct read, 2 s at their 1 Hz).
    /// - Parameter rate: Samples a second read.
    package static func stallLimit(rate: Double) -> Duration { .seconds(max(5, 3 / rate)) }

    /// Creates a watch with no read in flight.
    package init() {}

    /// A read of `path` begins.
    package func begin(_ path: String) {
        let now = ContinuousClock.now
        current.withLock { $0 = Read(path: path, since: now) }
    }

    /// The read in flight has returned.
    package func end() {
        current.withLock { $0 = nil }
    }

    /// The file of a read in flight for longer than `limit`, and how long it has been, or `nil`.
    /// - Parameters:
    ///   - limit: How long a read may take.
    ///   - now: The time now.
    package func stalled(longerThan limit: Duration, at now: ContinuousClock.Instant = .now) -> (path: String, for: Duration)? {
        current.withLock { read in
            guard let read, now - read.since > limit else { return nil }
            return (read.path, now - read.since)
        }
    }
}
