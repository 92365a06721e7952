// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A one-way flag a thread can wait on with a timeout: set once by `stop()`, seen by a reader
/// thread (gpsd's, a byte stream's) between reads and while it waits to reconnect.
///
/// Safety: `@unchecked Sendable` because `isSet` is only read and written while holding
/// `condition` (an `NSCondition`, which is its own lock).
package final class StopSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var isSet = false

    /// Creates an unset signal.
    package init() {}

    /// Whether the signal is set.
    package var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isSet
    }

    /// Sets the signal and wakes a waiting thread.
    package func stop() {
        condition.lock()
        isSet = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the signal is set or `seconds` have passed.
    /// - Returns: Whether the signal is set.
    @discardableResult
    package func wait(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !isSet {
            if !condition.wait(until: deadline) { break }
        }
        return isSet
    }
}
