// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Synchronization
import Testing

@testable import HeadingDaemon

/// The flat-out replay's printing thread: what is handed over is printed in order and whole, the
/// poster waits (nothing dropped) when the queue is full, and after the thread is closed the
/// poster prints itself, after everything handed over before.
struct PrintingThreadTests {
    private static func events(_ range: Range<Int>) -> [HeadingEvent] {
        range.map { index in
            .heading(Heading(trueHeading: Double(index % 360), magneticHeading: nil, timestamp: Date(timeIntervalSince1970: Double(index)), source: "t"))
        }
    }

    private static func order(_ events: [HeadingEvent]) -> [Int] {
        events.compactMap { $0.heading.map { Int($0.timestamp.timeIntervalSince1970) } }
    }

    @Test func everythingHandedOverIsPrintedInOrder() {
        let printed = Mutex<[Int]>([])
        let thread = PrintingThread(name: "test-print", capacity: 2) { events in
            // Slower than the poster: the queue fills and the poster must wait, not drop.
            usleep(200)
            printed.withLock { $0 += Self.order(events) }
        }
        for batch in 0..<200 { #expect(thread.enqueue(Self.events(batch * 10..<(batch + 1) * 10))) }
        thread.close()
        #expect(printed.withLock { $0 } == Array(0..<2000))
    }

    @Test func afterCloseThePosterPrintsAfterWhatWasHandedOver() {
        let printed = Mutex<[Int]>([])
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let thread = PrintingThread(name: "test-print", capacity: 4) { events in
            if Self.order(events).first == 0 {
                started.signal()
                release.wait()  // holds the thread inside the first batch while it is closed
            }
            printed.withLock { $0 += Self.order(events) }
        }
        #expect(thread.enqueue(Self.events(0..<5)))
        #expect(thread.enqueue(Self.events(5..<10)))
        started.wait()
        let closed = DispatchSemaphore(value: 0)
        Thread {
            thread.close()
            closed.signal()
        }.start()
        // Refused only once the thread has printed what it had: a hand-over after close waits for that.
        let refused = Mutex(false)
        let posted = DispatchSemaphore(value: 0)
        Thread {
            while !refused.withLock({ $0 }) {
                if !thread.enqueue([]) {
                    refused.withLock { $0 = true }
                    printed.withLock { $0 += [-1] }  // what the poster then prints itself
                }
            }
            posted.signal()
        }.start()
        release.signal()
        closed.wait()
        posted.wait()
        let all = printed.withLock { $0 }
        #expect(Array(all.prefix(10)) == Array(0..<10))
        #expect(all.last == -1)
    }
}
