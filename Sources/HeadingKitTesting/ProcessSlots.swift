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
/// least 4).
///
/// Each test's own time limit, ``limit``, starts when it has taken its slot: the wait for one
/// (three to four minutes of `swift test`'s run on a 2-core machine, more on a busy host) never
/// counts against it, so a quick test is never timed out for waiting its turn. A test past its
/// limit is cancelled and fails, naming the limit. Swift Testing's own `.timeLimit`, which counts
/// the wait, stays on the suites only as a wide guard against a hang (20 minutes, inside CI's 90).
public struct ProcessSlotTrait: TestTrait, SuiteTrait, TestScoping {
    /// How long one test may run once it holds its slot.
    public let limit: Duration

    /// Every test of a suite that has the trait holds a slot of its own.
    public var isRecursive: Bool { true }

    /// Runs the test once it holds a slot, for at most ``limit``, and frees the slot after it.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil || !test.isSuite else { return try await function() }
        await Self.slots.acquire()
        defer { Self.slots.release() }
        let limit = limit
        // The group awaits both tasks before it returns: the test's closure does not outlive this call.
        try await withoutActuallyEscaping(function) { function in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await function()
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return false
                }
                let finished = try await group.next() ?? true
                group.cancelAll()
                if !finished { throw SlotTimeLimitExceeded(limit: limit) }
            }
        }
    }

    /// The slots every suite with the trait shares.
    public static let slots = AsyncSemaphore(
        count: ProcessInfo.processInfo.environment["HEADINGD_TEST_SLOTS"].flatMap(Int.init).map { max(1, $0) }
            ?? max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    )
}

/// A test ran past its ``ProcessSlotTrait/limit``, counted from when it took its slot.
public struct SlotTimeLimitExceeded: Error, CustomStringConvertible {
    /// The limit it ran past.
    public let limit: Duration
    /// Says so.
    public var description: String { "the test ran past its limit of \(limit) after taking its process slot" }
}

extension Trait where Self == ProcessSlotTrait {
    /// Each test holds one of a few process slots while it runs, for at most 4 minutes from
    /// when it takes it (see ``ProcessSlotTrait``).
    public static var processSlot: Self { ProcessSlotTrait(limit: .seconds(240)) }

    /// Each test holds one of a few process slots while it runs, for at most `limit` from when it takes it.
    /// - Parameter limit: How long one test may run once it holds its slot.
    public static func processSlot(limit: Duration) -> Self { ProcessSlotTrait(limit: limit) }
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
