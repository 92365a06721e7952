// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The write end of the one signal pipe, for the handlers (an atomic load and `write(2)` are
/// async-signal-safe; nothing else is done in a handler).
private let signalPipeWriteEnd = Atomic<Int32>(-1)

/// Signals taken at once and never lost: a handler installed with `sigaction` before this returns
/// writes each signal's number to a pipe, which a thread or a dispatch source then reads at its
/// leisure. (A dispatch signal source registers with the kernel later, on dispatch's own thread:
/// a signal in between met `SIG_IGN` and was lost — `headingd scan` stopped by a SIGTERM sent
/// just after it began listening went on for its whole time.)
package enum SignalPipe {
    /// Installs the handlers for `signals` and unblocks them in this thread (a parent may have
    /// started the process with them blocked). Once a process.
    /// - Returns: The pipe's read end (non-blocking, close-on-exec): each byte a signal's number;
    ///   `nil` when no pipe could be made (the signals keep their default actions).
    package static func install(_ signals: [Int32]) -> Int32? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        signalPipeWriteEnd.store(ends[1], ordering: .releasing)
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let descriptor = signalPipeWriteEnd.load(ordering: .acquiring)
                guard descriptor >= 0 else { return }
                let savedErrno = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(descriptor, &byte, 1)
                errno = savedErrno
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
            sigaddset(&mask, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        return ends[0]
    }
}
