// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The write ends of the signals' pipes, for the handlers (an atomic load and `write(2)` are
/// async-signal-safe; nothing else is done in a handler): one a signal, so that each user's pipe
/// is its own (headingd's SIGHUP reloads, its SIGTERM and SIGINT stop).
private let hangupWriteEnd = Atomic<Int32>(-1)
private let interruptWriteEnd = Atomic<Int32>(-1)
private let terminateWriteEnd = Atomic<Int32>(-1)

/// Signals taken at once and never lost: a handler installed with `sigaction` before this returns
/// writes each signal's number to a pipe, which a thread or a dispatch source then reads at its
/// leisure. (A dispatch signal source registers with the kernel later, on dispatch's own thread:
/// a signal in between met `SIG_IGN` and was lost — SIGHUP 1 in about 260, and `headingd scan`
/// stopped by a SIGTERM sent just after it began listening went on for its whole time.) The one
/// way headingd takes SIGHUP, SIGINT and SIGTERM (its reloads, its stop, `scan`'s end).
package enum SignalPipe {
    /// Installs the handlers for `signals` (of SIGHUP, SIGINT and SIGTERM; a signal given again
    /// is taken from its earlier pipe) and unblocks them in this thread (a parent may have started
    /// the process with them blocked).
    /// - Returns: The pipe's read end (non-blocking, close-on-exec): each byte a signal's number;
    ///   `nil` when no pipe could be made (the signals keep their actions).
    package static func install(_ signals: [Int32]) -> Int32? {
        precondition(signals.allSatisfy { [SIGHUP, SIGINT, SIGTERM].contains($0) }, "SignalPipe takes SIGHUP, SIGINT and SIGTERM")
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        for number in signals { setWriteEnd(ends[1], of: number) }
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let descriptor = SignalPipe.writeEnd(of: number)
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

    /// Whether a signal's number waited in the pipe whose read end is `descriptor`: reads what
    /// waits without waiting (what is read is gone), for a loop that looks between its steps.
    package static func takeAny(from descriptor: Int32) -> Bool {
        var bytes = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        var came = false
        while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress, $0.count) }) > 0 { came = true }
        return came
    }

    /// Where a signal's handler finds its pipe: -1 for none.
    private static func writeEnd(of number: Int32) -> Int32 {
        switch number {
        case SIGHUP: hangupWriteEnd.load(ordering: .acquiring)
        case SIGINT: interruptWriteEnd.load(ordering: .acquiring)
        case SIGTERM: terminateWriteEnd.load(ordering: .acquiring)
        default: -1
        }
    }

    private static func setWriteEnd(_ descriptor: Int32, of number: Int32) {
        switch number {
        case SIGHUP: hangupWriteEnd.store(descriptor, ordering: .releasing)
        case SIGINT: interruptWriteEnd.store(descriptor, ordering: .releasing)
        case SIGTERM: terminateWriteEnd.store(descriptor, ordering: .releasing)
        default: break
        }
    }
}
