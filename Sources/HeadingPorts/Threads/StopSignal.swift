// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A one-way flag a thread can wait on with a timeout: set once by `stop()`, seen by a reader
/// thread (gpsd's, a byte stream's) between reads and while it waits to reconnect.
///
/// Safety: `@unchecked Sendable` because `isSet` is only read and written while holding
/// `condition` (an `NSCondition`, which is its own lock); the pipe is a `Sendable` ``WakePipe``.
package final class StopSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var isSet = false
    /// A pipe whose read end becomes readable when the signal is set, for a thread that waits in
    /// `poll(2)` (a byte stream's reader) to wake at once rather than at its next timeout.
    private let pipe: WakePipe?

    /// Creates an unset signal.
    /// - Parameter wakesPoll: Whether it has a ``wakeDescriptor`` to put in a `poll(2)` set.
    package init(wakesPoll: Bool = false) {
        pipe = wakesPoll ? WakePipe() : nil
    }

    /// A descriptor that becomes readable once the signal is set (never read: it stays readable),
    /// or -1 (which `poll(2)` ignores) for a signal made without one.
    package var wakeDescriptor: Int32 { pipe?.descriptor ?? -1 }

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
        pipe?.wake()
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
