// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// How many reader threads of a source or a feed run, and who waits for the last to end: kept in
/// the owner's locked state, so that `waitUntilStopped()` is written once (the stream feed's and
/// gpsd's). Not thread-safe itself: it lives in a `Mutex`'s value.
package struct RunningReaders: Sendable {
    /// How many run.
    package private(set) var count = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// An empty count.
    package init() {}

    /// A reader starts.
    package mutating func started() { count += 1 }

    /// A reader ended.
    /// - Returns: The waiters to resume, outside the lock: every one when it was the last, else none.
    package mutating func ended() -> [CheckedContinuation<Void, Never>] {
        count = max(0, count - 1)
        guard count == 0 else { return [] }
        defer { waiters = [] }
        return waiters
    }

    /// Keeps a waiter until the last reader ends.
    /// - Returns: `false` when none runs: the caller resumes it at once, outside the lock.
    package mutating func keep(_ waiter: CheckedContinuation<Void, Never>) -> Bool {
        guard count > 0 else { return false }
        waiters.append(waiter)
        return true
    }
}
