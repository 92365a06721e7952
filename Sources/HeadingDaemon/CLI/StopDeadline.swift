// headingd
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import HeadingPorts

#if canImport(Glibc)
import Glibc
#endif

/// Watches SIGTERM and SIGINT for the whole process: the first asks for a graceful shutdown
/// (``ShutdownRequest``), and the process ends within a bound whatever its threads are doing.
///
/// The graceful shutdown (ServiceLifecycle) runs on the cooperative thread pool; a thread stuck
/// in a blocking `read(2)` (a replay of a FIFO no one writes) or `write(2)` (standard output to a
/// pipe no one reads) never lets it finish. This watch runs on a dispatch queue of its own: the
/// first signal starts the clock, and if headingd is still running when ``limit`` has passed, or
/// at a second signal, it says so (without blocking) and ends the process with the signal's
/// default action, as an unhandled SIGTERM would. Data in flight may be lost; the ability to stop
/// never is.
enum StopDeadline {
    /// How long the graceful shutdown may take: well inside systemd's stop timeout, and longer
    /// than any stage needs when nothing is stuck (the gpsd reader closes within its 250 ms read timeout).
    static let limit = DispatchTimeInterval.milliseconds(1500)

    /// The read source on the signal pipe; kept for the life of the process. `nonisolated(unsafe)`:
    /// written only by ``arm(requesting:)``, once, before any signal can reach it, and never read.
    nonisolated(unsafe) private static var source: (any DispatchSourceRead)?

    /// Starts watching SIGTERM and SIGINT: from the moment this returns, neither is lost. Call
    /// once, first thing in `main` (``Headingd/main()``), before anything a signal should stop.
    ///
    /// The handlers are installed with `sigaction` and write the signal's number to a pipe
    /// (``SignalPipe``), read by a dispatch source, as ``HangupSignals`` does for SIGHUP: a libdispatch signal source alone
    /// sets the signal to `SIG_IGN` and is armed some time after `resume()`, and a signal in
    /// between is dropped by the kernel (SIGHUP: 1 in about 260). Before this returns, SIGTERM
    /// keeps its default action, which systemd counts as a clean stop.
    /// - Parameter shutdown: Asked for at the first signal.
    static func arm(requesting shutdown: ShutdownRequest) {
        // Handlers in place before this returns; each byte in the pipe a signal's number.
        guard let readEnd = SignalPipe.install([SIGTERM, SIGINT]) else { return }  // out of descriptors at start: the default actions stay
        let queue = DispatchQueue(label: "headingd.stop-deadline")
        // Read and written only by the handler, which runs on `queue`, a serial queue.
        var signalled = 0
        let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: queue)
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 16)
            while true {
                let count = read(readEnd, &bytes, bytes.count)
                guard count > 0 else { break }
                for byte in bytes[0..<count] {
                    let number = Int32(byte)
                    signalled += 1
                    if signalled > 1 { forceExit(number, reason: "a second signal") }
                    shutdown.request()
                    queue.asyncAfter(deadline: .now() + limit) {
                        forceExit(number, reason: "the shutdown did not finish within 1.5 s")
                    }
                }
            }
        }
        source.resume()
        Self.source = source
    }

    private static func forceExit(_ number: Int32, reason: String) {
        // Standard error may be the blocked pipe itself: one write that cannot block, then go.
        let message = "headingd: stopping at once: \(reason); a blocked read or write was abandoned\n"
        let flags = fcntl(2, F_GETFL)
        if flags >= 0 { _ = fcntl(2, F_SETFL, flags | O_NONBLOCK) }
        _ = message.withCString { write(2, $0, strlen($0)) }
        // This runs on a dispatch thread, which blocks signals: unblock it so that it takes its
        // default action here, as the unhandled signal would have (systemd counts SIGTERM as a clean stop).
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, number)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
        signal(number, SIG_DFL)
        raise(number)
        _exit(128 + number)
    }
}
