// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Clocks
import Dispatch
import Foundation
@testable import HeadingKit
import HeadingKitTesting
import Synchronization
import Testing

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// The one way HeadingKit hands events to subscribers: in one order for all, with no lock held
/// while a subscriber runs, and a bounded queue.
struct HeadingBroadcastTests {
    /// A heading carrying `number` (in its timestamp: a heading's angle wraps at 360).
    private static func numbered(_ number: Int) -> HeadingEvent {
        .heading(Heading(trueHeading: 1, magneticHeading: nil, timestamp: Date(timeIntervalSince1970: Double(number)), source: "n"))
    }

    /// The number `numbered` gave, or -1.
    private static func number(of event: HeadingEvent) -> Int {
        event.heading.map { Int($0.timestamp.timeIntervalSince1970) } ?? -1
    }

    /// Runs `body` on a thread of its own and says, within `timeout`, whether it returned.
    private func returnsOnAnotherThread(within timeout: DispatchTime = .now() + 10, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done.wait(timeout: timeout) == .success
    }

    @Test func aSubscriberMayWaitForAnotherThreadThatCallsIntoTheProxy() {
        // With a lock held during delivery, the other thread's first call would wait for the
        // subscriber, which waits for it: both for ever (here, for the 10 s bound).
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let answered = Mutex<[Bool]>([])
        let sink = proxy.headingPublisher.sink { @Sendable [weak proxy] _ in
            guard let proxy else { return }
            let returned = returnsOnAnotherThread {
                _ = proxy.isEnabled
                proxy.headingFilter = 0
                _ = proxy.events()
                _ = proxy.addStage { _ in }
            }
            answered.withLock { $0.append(returned) }
        }
        defer { sink.cancel() }
        proxy.enable()
        source.send(trueHeading: 1)
        source.send(headings: [heading(2), heading(3)])
        #expect(answered.withLock { $0 } == [true, true, true])
    }

    @Test func aSubscriberMayWaitForAnotherThreadThatCallsIntoTheProcessor() {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let processor = HeadingProcessor(inputs: [(proxy, .init())], delivery: .immediate, clock: TestClock())
        let answered = Mutex<[Bool]>([])
        let subscription = processor.publisher.sink { @Sendable [weak processor] (event: HeadingEvent) in
            guard let processor, event.heading != nil else { return }
            let returned = returnsOnAnotherThread {
                _ = processor.activeSourceName
                processor.setDeviationTable(nil, forSourceAt: 0)
                _ = processor.events()
            }
            answered.withLock { $0.append(returned) }
        }
        defer { subscription.cancel() }
        processor.start()
        proxy.enable()
        defer {
            processor.stop()
            proxy.disable()
        }
        source.send(trueHeading: 1)
        source.send(trueHeading: 2)
        #expect(answered.withLock { $0 } == [true, true])
    }

    @Test func everySubscriberSeesTheSameOrderWhenTwoThreadsSend() async {
        let broadcast = HeadingBroadcast()
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        let subscriptions = [first, second].map { recorder in
            broadcast.add({ event in recorder.record(Self.number(of: event)) })
        }
        defer { for subscription in subscriptions { subscription.cancel() } }
        let perThread = 5_000
        for offset in [0, 100_000] {
            Thread {
                for index in 0..<perThread { broadcast.send(Self.numbered(offset + index)) }
            }.start()
        }
        #expect(await second.wait(timeout: .seconds(60)) { $0.count == 2 * perThread })
        #expect(await first.wait(timeout: .seconds(10)) { $0.count == 2 * perThread })
        let seen = first.events
        #expect(seen == second.events, "the two subscribers saw different orders")
        #expect(seen.filter { $0 < 100_000 } == Array(0..<perThread), "the first thread's events out of its order")
        #expect(seen.filter { $0 >= 100_000 } == Array(100_000..<100_000 + perThread), "the second thread's events out of its order")
    }

    @Test func anEventSentFromInsideASubscriberReachesEverySubscriberAfterTheCurrentOne() {
        let broadcast = HeadingBroadcast()
        let seen = Mutex<[String]>([])
        let a = broadcast.add { event in
            let value = event.heading?.trueHeading ?? -1
            seen.withLock { $0.append("a\(Int(value))") }
            if value == 1 { broadcast.send(.heading(heading(2))) }
        }
        let b = broadcast.add { event in seen.withLock { $0.append("b\(Int(event.heading?.trueHeading ?? -1))") } }
        defer {
            a.cancel()
            b.cancel()
        }
        broadcast.send(.heading(heading(1)))
        #expect(seen.withLock { $0 } == ["a1", "b1", "a2", "b2"])
    }

    @Test func aSenderWaitsWhileTheQueueIsFullAndNothingIsLost() async {
        let broadcast = HeadingBroadcast()
        let stuck = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let received = Recorder<Int>()
        let subscription = broadcast.add { event in
            let value = Self.number(of: event)
            if value == 0 {  // a subscriber stuck on the first event
                stuck.signal()
                release.wait()
            }
            received.record(value)
        }
        defer { subscription.cancel() }
        let total = HeadingBroadcast.queueLimit + 500
        let sent = Recorder<Int>()
        let lock = NSLock()  // the sender's own, as an owner's
        Thread {  // delivers the first event, and is stuck there
            broadcast.send(Self.numbered(0))
        }.start()
        Thread {
            stuck.wait()
            for index in 1..<total {
                broadcast.sending(under: lock) { broadcast.enqueue(Self.numbered(index)) }
                sent.record(index)
            }
        }.start()
        #expect(await sent.wait(timeout: .seconds(30)) { $0.count == HeadingBroadcast.queueLimit })
        #expect(broadcast.queuedCount == HeadingBroadcast.queueLimit)
        #expect(sent.events.count == HeadingBroadcast.queueLimit, "the sender went on past a full queue")
        release.signal()
        #expect(await received.wait(timeout: .seconds(30)) { $0.count == total })
        #expect(received.events == Array(0..<total), "lost or out of order")
    }

    @Test func aStreamEndsWithTheBroadcastAndItsConsumerLeavingRemovesIt() async {
        let broadcast = HeadingBroadcast()
        let stream = broadcast.stream(bufferingPolicy: .unbounded) { $0.heading?.trueHeading }
        let leaving = broadcast.stream(bufferingPolicy: .unbounded) { $0.heading?.trueHeading }
        #expect(broadcast.subscriberCount == 2)
        let consumer = Task { for await _ in leaving {} }
        consumer.cancel()
        await consumer.value
        #expect(broadcast.subscriberCount == 1)
        broadcast.send(.heading(heading(7)))
        broadcast.finish()
        var values: [Double] = []
        for await value in stream { values.append(value) }
        #expect(values == [7])
        let late = broadcast.stream(bufferingPolicy: .unbounded) { $0.heading?.trueHeading }
        for await _ in late { Issue.record("a stream made after the end has an element") }
    }
}
