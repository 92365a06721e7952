// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingPorts

/// A thread of its own that prints a flat-out replay's events beside its decoding: the poster
/// (the replay's reader, through the processor and the center) hands each notification's events
/// over and goes back to decoding, and this thread formats and writes them, in the order handed
/// over. On a machine with two cores a flat-out replay then takes the longer of the two halves,
/// not their sum.
///
/// Bounded, and nothing dropped: at most ``capacity`` hand-overs wait (a flat-out replay's batch is
/// 256 headings); a poster that finds the queue full waits for room. Only the flat-out replay's
/// log uses it: a live heading is printed where it arrives (a hand-over would cost a thread
/// wake-up a heading).
///
/// Safety: `@unchecked Sendable` because its mutable state — `pending`, `isClosed` and
/// `isFinished` — is read and written only while holding `condition`.
final class PrintingThread: @unchecked Sendable {
    /// How many hand-overs may wait before the poster waits for room.
    let capacity: Int
    private let condition = NSCondition()
    private var pending: [[HeadingEvent]] = []
    private var isClosed = false
    private var isFinished = false

    /// Starts the thread.
    /// - Parameters:
    ///   - name: The thread's name, as `top -H` shows it (at most 15 bytes).
    ///   - capacity: How many hand-overs may wait. Default 8.
    ///   - print: Prints one hand-over's events; called on the thread, one hand-over at a time, in order.
    init(name: String, capacity: Int = 8, print: @escaping @Sendable ([HeadingEvent]) -> Void) {
        self.capacity = max(1, capacity)
        Thread { [self] in
            setThreadName(name)
            run(print)
        }.start()
    }

    /// Hands events over to be printed after those handed over before; waits while the queue is
    /// full.
    /// - Parameter events: The events, oldest first.
    /// - Returns: `false` when the thread has been closed (and has printed all it was given):
    ///   the caller prints them itself, and order is kept.
    func enqueue(_ events: [HeadingEvent]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while pending.count >= capacity, !isClosed { condition.wait() }
        guard !isClosed else {
            while !isFinished { condition.wait() }
            return false
        }
        pending.append(events)
        condition.broadcast()
        return true
    }

    /// Lets the thread print what it was given, and waits until it has. Later hand-overs are
    /// refused (``enqueue(_:)`` returns `false`). Calling it again does nothing.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        isClosed = true
        condition.broadcast()
        while !isFinished { condition.wait() }
    }

    private func run(_ print: ([HeadingEvent]) -> Void) {
        while true {
            condition.lock()
            while pending.isEmpty, !isClosed { condition.wait() }
            guard !pending.isEmpty else {
                isFinished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let events = pending.removeFirst()
            condition.broadcast()  // room for a waiting poster
            condition.unlock()
            print(events)
        }
    }
}
