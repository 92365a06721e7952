// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

public import HeadingKit
import Synchronization

/// What a source reported.
public typealias DelegateRecorder = Recorder<HeadingEvent>

/// Records a sequence of values (a source's reports, a connection's states), and lets a test
/// await a condition on them: woken by each new value, never by polling, and bounded by a timeout.
public final class Recorder<Element: Sendable>: Sendable {
    private struct State {
        var events: [Element] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Creates an empty recorder.
    public init() {}

    /// Everything recorded so far, in order.
    public var events: [Element] { state.withLock { $0.events } }

    /// Records a value and wakes every waiter.
    public func record(_ event: Element) {
        let waiters = state.withLock { state in
            state.events.append(event)
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Waits until `condition` holds over the events, for at most `timeout`. Returns whether it held.
    public func wait(timeout: Duration = .seconds(30), until condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (holds, count) = state.withLock { (condition($0.events), $0.events.count) }
            if holds { return true }
            if ContinuousClock.now >= deadline { return false }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.nextEvent(after: count) }
                group.addTask { try? await Task.sleep(until: deadline) }
                await group.next()
                group.cancelAll()
                self.wakeAll()
            }
        }
    }

    /// Returns once there are more than `count` events.
    private func nextEvent(after count: Int) async {
        await withCheckedContinuation { continuation in
            let changed = state.withLock { state in
                if state.events.count != count { return true }
                state.waiters[state.nextWaiter] = continuation
                state.nextWaiter += 1
                return false
            }
            if changed { continuation.resume() }
        }
    }

    private func wakeAll() {
        let waiters = state.withLock { state in
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }
}

extension Recorder: HeadingSourceDelegate where Element == HeadingEvent {
    /// The headings recorded so far.
    public var headings: [Heading] { events.compactMap(\.heading) }
    /// The faults recorded so far.
    public var faults: [HeadingFault] { events.compactMap(\.fault) }

    /// Records the heading.
    public func headingSource(_ source: any HeadingSource, didUpdate heading: Heading) { record(.heading(heading)) }
    /// Records the fault.
    public func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault) { record(.fault(fault)) }
    /// Records the end of a condition, as a notice.
    public func headingSource(_ source: any HeadingSource, didRecover notice: HeadingNotice) { record(.notice(notice)) }
    /// Records the authorization change.
    public func headingSource(_ source: any HeadingSource, didChangeAuthorization status: HeadingAuthorizationStatus) {
        record(.authorizationChanged(status))
    }
}
