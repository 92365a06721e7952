// headingd
// SPDX-License-Identifier: Apache-2.0

import Dispatch
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
final class HangupSignals: Sendable {
    private struct State {
        /// The reloader waiting for the next SIGHUP, if one waits.
        var waiter: CheckedContinuation<Bool, Never>?
        /// A SIGHUP that came while no one waited, for the next wait.
        var isPending = false
    }

    private let state = Mutex(State())
    /// The signal source, kept for the life of the process. `nonisolated(unsafe)`: set once by
    /// `init`, then touched only by `deinit` (a dispatch source is itself thread-safe).
    nonisolated(unsafe) private let source: any DispatchSourceSignal

    /// Starts watching SIGHUP. Make one, once, before anything starts that a SIGHUP may reach.
    init() {
        signal(SIGHUP, SIG_IGN)  // a dispatch source needs the default action (terminate) off
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "headingd.hangup"))
        source.setEventHandler { [weak self] in self?.deliver() }
        source.resume()
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
