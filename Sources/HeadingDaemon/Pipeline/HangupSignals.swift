// headingd
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import HeadingPorts
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGHUP, watched once for the whole process from its start and never lost: each signal wakes
/// the configuration reloader that is waiting, or is kept for the next one that waits.
///
/// A reloader that trapped SIGHUP itself armed its handler only when its service ran — after the
/// heading log and the proxies had started and, as libdispatch arms a handler some time later,
/// sometimes after `READY=1`, when systemd may send SIGHUP for `systemctl reload`. A SIGHUP in
/// that window was ignored, or, before anything had set it aside, ended headingd (its default
/// action); and between two pipelines of a reload no reloader listens at all.
///
/// A libdispatch signal source is not enough either: it is armed some time after `resume()`,
/// and the kernel drops a SIGHUP that comes before then (its action is `SIG_IGN` meanwhile) —
/// 1 SIGHUP in about 260 sent as soon as headingd said it was authorized. So `init` installs a
/// handler with `sigaction` before it returns (``SignalPipe``), and the handler writes a byte to a
/// pipe; a dispatch read source on the pipe's other end wakes the reloader.
/// The pipe keeps what comes before that source is armed.
final class HangupSignals: Sendable {
    private struct State {
        /// The reloader waiting for the next SIGHUP, if one waits.
        var waiter: CheckedContinuation<Bool, Never>?
        /// A SIGHUP that came while no one waited, for the next wait.
        var isPending = false
    }

    private let state = Mutex(State())
    /// The read source on the pipe, kept for the life of the process. `nonisolated(unsafe)`: set
    /// once by `init`, then touched only by `deinit` (a dispatch source is itself thread-safe).
    nonisolated(unsafe) private let source: any DispatchSourceRead

    /// The process's watcher: made by the first use, which `Headingd.main()` makes before it
    /// parses a single option, so that only the process's first milliseconds (before `main`)
    /// are left to SIGHUP's default action.
    static let process = HangupSignals()

    /// Starts watching SIGHUP: from the moment this returns, no SIGHUP is lost. One per process
    /// (``process``): a second would take the first one's signals.
    private init() {
        // Taken before this returns (SignalPipe): a SIGHUP at once is not lost.
        let readEnd = SignalPipe.install([SIGHUP]) ?? -1
        if readEnd < 0 { signal(SIGHUP, SIG_IGN) }  // no pipe (out of descriptors at start): ignored rather than fatal
        source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: DispatchQueue(label: "headingd.hangup"))
        source.setEventHandler { [weak self] in
            if SignalPipe.takeAny(from: readEnd) { self?.deliver() }  // several SIGHUPs are one reload
        }
        if readEnd >= 0 { source.resume() }
    }

    deinit { source.cancel() }

    /// Waits for the next SIGHUP, or returns at once if one came while no one waited. One caller
    /// waits at a time (the running pipeline's reloader).
    /// - Returns: `true` for a SIGHUP, `false` when the waiting task was cancelled.
    func next() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = state.withLock { state in
                    // Checked under the lock the cancellation handler takes: no wait is left behind.
                    if Task.isCancelled { return false }
                    if state.isPending {
                        state.isPending = false
                        return true
                    }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: false)
        }
    }

    private func deliver() {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.isPending = true
                return CheckedContinuation<Bool, Never>?.none
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: true)
    }
}
