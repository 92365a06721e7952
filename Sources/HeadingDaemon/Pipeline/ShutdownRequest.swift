// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle
import Synchronization

/// SIGTERM or SIGINT, seen once for the whole process and never lost — or the end of every
/// replay when replays are all there is: it shuts down the service group that is running, or the
/// next one as soon as it exists, and no pipeline starts after it.
///
/// The signals are watched by ``StopDeadline``'s handlers, installed once at start, not by each
/// pipeline's `ServiceGroup`: a group's own handlers are armed by libdispatch only some time after
/// the group starts, and between two pipelines (a reload) there are none, so a signal in either
/// gap was ignored and only the stop deadline ended headingd, 1.5 s later and with a failure status.
final class ShutdownRequest: Sendable {
    private struct State {
        var isRequested = false
        var group: ServiceGroup?
    }

    private let state = Mutex(State())

    /// Creates a request not yet made.
    init() {}

    /// The process's request, which ``StopDeadline`` makes at SIGTERM or SIGINT from the start of
    /// `main`; a request made before the first pipeline runs shuts it down as soon as it starts.
    static let process = ShutdownRequest()

    /// Whether a shutdown was asked for.
    var isRequested: Bool { state.withLock { $0.isRequested } }

    /// Asks for shutdown: the running group, if any, shuts down gracefully.
    func request() {
        let group = state.withLock { state in
            state.isRequested = true
            return state.group
        }
        if let group { Task { await group.triggerGracefulShutdown() } }
    }

    /// Ends the running group gracefully without asking for headingd's shutdown, so that the
    /// next pipeline starts: what a reload does. A service that ends its group this way, rather
    /// than by returning, is never a service returning during another's shutdown (a failure to
    /// ServiceLifecycle, exit status 1) when SIGTERM comes at the same moment.
    func endRunningGroup() {
        if let group = state.withLock({ $0.group }) { Task { await group.triggerGracefulShutdown() } }
    }

    /// Runs `group` until it ends, shut down gracefully at once if shutdown was already asked for.
    /// - Parameter group: A service group that traps no signals itself.
    func run(_ group: ServiceGroup) async throws {
        let isRequested = state.withLock { state in
            state.group = group
            return state.isRequested
        }
        defer { state.withLock { $0.group = nil } }
        if isRequested { await group.triggerGracefulShutdown() }
        try await group.run()
    }
}
