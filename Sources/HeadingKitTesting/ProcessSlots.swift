// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization
public import Testing

/// A bound on how many tests that start processes (headingd, gpsfake and its gpsd, Python
/// clients, socat) run at once: ``slots`` at a time, the others waiting their turn.
///
/// Swift Testing (6.3) starts every test at once, and this suite's tests start real processes
/// that want a core each for a moment: unbounded, the load on a 2-core machine passed 35 and
/// gpsfake could not start its gpsd within 20 s. Give a suite `.processSlot` and each of its tests
/// holds one slot while it runs. `HEADINGD_TEST_SLOTS` sets the number (default: 2 a core, at
/// least 4). A suite's time limit counts the wait for a slot, which can be most of `swift test`'s
/// run (three to four minutes on a 2-core machine): the suites that hold one give themselves six
/// minutes, still a guard against a hang well inside CI's 90. (Two minutes was too few: a full
/// run timed out eight quick tests waiting for a slot, and another passed one after 119.6 s.)
public struct ProcessSlotTrait: TestTrait, SuiteTrait, TestScoping {
    /// Every test of a suite that has the trait holds a slot of its own.
    public var isRecursive: Bool { true }

    /// Runs the test once it holds a slot, and frees the slot after it.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil || !test.isSuite else { return try await function() }
        await Self.slots.acquire()
        defer { Self.slots.release() }
        try await function()
    }

    /// The slots every suite with the trait shares.
    public static let slots = AsyncSemaphore(
        count: ProcessInfo.processInfo.environment["HEADINGD_TEST_SLOTS"].flatMap(Int.init).map { max(1, $0) }
            ?? max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    )
}

extension Trait where Self == ProcessSlotTrait {
    /// Each test holds one of a few process slots while it runs (see ``ProcessSlotTrait``).
    public static var processSlot: Self { ProcessSlotTrait() }
}

/// A counting semaphore for tasks: ``acquire()`` suspends (never blocks a thread) until a unit is free.
public final class AsyncSemaphore: Sendable {
    private struct State {
        var available: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// A semaphore with `count` units.
    public init(count: Int) { state = Mutex(State(available: count)) }

    /// Takes a unit, waiting for one to be released when none is free.
    public func acquire() async {
        await withCheckedContinuation { continuation in
            let acquired = state.withLock { state in
                guard state.available > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.available -= 1
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    /// Gives a unit back, to the longest waiter if there is one.
    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
