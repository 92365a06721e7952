// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// A pipe that wakes a thread waiting in `poll(2)`: another thread calls ``wake()``, and
/// ``descriptor`` becomes readable. Both ends are non-blocking and close on exec; a wake on a full
/// pipe is dropped (the descriptor is readable already). Immutable after `init`, and a pipe's
/// reads and writes are thread-safe: `Sendable` as it is.
package final class WakePipe: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    /// Opens the pipe. Out of descriptors, it is made without one: ``descriptor`` is then -1, which
    /// `poll(2)` ignores, and the waiting thread wakes at its timeout instead.
    package init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// The read end, for a `poll(2)` set: readable after ``wake()`` until ``drain()``.
    package var descriptor: Int32 { readEnd }

    /// Makes ``descriptor`` readable.
    package func wake() {
        guard writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Reads every wake so far: ``descriptor`` is no longer readable until the next.
    package func drain() {
        guard readEnd >= 0 else { return }
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &bytes, bytes.count) > 0 {}
    }
}
