// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingPorts
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C or SIGTERM for a command that ends its work on them and says what it had (`calibrate`,
/// `deviation`) instead of dying: taken through ``SignalPipe`` like the daemon's, and latched, so
/// that a loop looks between its steps and a signal is never lost.
enum Interruption {
    /// The pipe's read end, once ``watch()`` has installed the handlers.
    private static let pipe = Mutex<Int32?>(nil)
    /// Whether one has come.
    private static let came = Atomic(false)

    /// From now on SIGINT and SIGTERM are taken here instead of ending the process.
    static func watch() {
        pipe.withLock { pipe in
            if pipe == nil { pipe = SignalPipe.install([SIGINT, SIGTERM]) }
        }
    }

    /// Whether SIGINT or SIGTERM has come since ``watch()``.
    static var hasCome: Bool {
        if came.load(ordering: .relaxed) { return true }
        guard let descriptor = pipe.withLock({ $0 }), SignalPipe.takeAny(from: descriptor) else { return false }
        came.store(true, ordering: .relaxed)
        return true
    }
}
