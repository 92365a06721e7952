// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Runs blocking work (a `poll(2)` with a timeout, a process's end, a sleep between polls) on a
/// thread of its own and awaits it, so that it never holds one of the cooperative pool's threads.
///
/// Swift Testing runs every test at once as tasks on that pool, which has one thread per core:
/// two here. A test that blocks a thread for seconds starves every other test's task — seen in CI
/// as gpsfake's readiness polls that never ran again within their 20 s and tests that ran past
/// their time limit.
/// - Parameter body: The blocking work.
/// - Returns: What `body` returns.
public func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// ``offCooperativePool(_:)`` for work that cannot fail.
public func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
