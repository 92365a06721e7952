// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A one-way flag a thread can wait on with a timeout: set once by `stop()`, seen by a reader
/// thread (gpsd's, a byte stream's) between reads and while it waits to reconnect.
///
/// Safety: `@unchecked Sendable` because `isSet` is only read and written while holding
/// `condition` (an `NSCondition`, which is its own lock); the pipe's descriptors never change after
/// `init`, and writing a byte to a pipe is thread-safe.
package final class StopSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var isSet = false
    /// A pipe whose read end becomes readable when the signal is set, for a thread that waits in
    /// `poll(2)` (a byte stream's reader) to wake at once rather than at its next timeout.
    private let pipeEnds: (read: Int32, write: Int32)?

    /// Creates an unset signal.
    /// - Parameter wakesPoll: Whether it has a ``wakeDescriptor`` to put in a `poll(2)` set.
    package init(wakesPoll: Bool = false) {
        var ends: [Int32] = [-1, -1]
        if wakesPoll, pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
            pipeEnds = (ends[0], ends[1])
        } else {
            pipeEnds = nil
        }
    }

    deinit {
        if let pipeEnds {
            close(pipeEnds.read)
            close(pipeEnds.write)
        }
    }

    /// A descriptor that becomes readable once the signal is set (never read: it stays readable),
    /// or -1 (which `poll(2)` ignores) for a signal made without one.
    package var wakeDescriptor: Int32 { pipeEnds?.read ?? -1 }

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
        if let pipeEnds {
            var byte: UInt8 = 1
            _ = write(pipeEnds.write, &byte, 1)
        }
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
