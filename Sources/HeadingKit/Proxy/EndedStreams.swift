// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// The keys of async streams whose consumers have gone away, recorded by the streams'
/// termination handlers and taken by the stream's owner under its own lock.
///
/// A termination handler may run inside the Swift runtime's lock on the cancelled task (task
/// cancellation calls it), and a `yield` to a waiting consumer takes that same lock to resume it.
/// An owner that yields while holding its lock must therefore never take that lock in a
/// termination handler: the two threads would wait on each other for ever. This lock is a leaf:
/// nothing is called while it is held, so taking it from anywhere is safe.
package final class EndedStreams: Sendable {
    private let keys = Mutex<[Int]>([])

    /// Creates an empty record.
    package init() {}

    /// Records that the stream with `key` ended; call from its termination handler.
    package func record(_ key: Int) {
        keys.withLock { $0.append(key) }
    }

    /// Takes every key recorded since the last call.
    package func take() -> [Int] {
        keys.withLock { keys in
            defer { keys = [] }
            return keys
        }
    }
}
