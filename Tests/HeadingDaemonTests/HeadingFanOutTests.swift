// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitTesting
import Synchronization
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@testable import HeadingDaemon

/// The one typed stage every consumer but the stdout log hears the processor through (issue 38).
struct HeadingFanOutTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    static func heading(_ value: Double) -> Heading {
        Heading(trueHeading: value, magneticHeading: nil, timestamp: Date(timeIntervalSince1970: 1_790_000_000), source: "compass")
    }

    static func describe(_ event: HeadingEvent) -> String {
        switch event {
        case .heading(let heading): "\(Int(heading.trueHeading ?? -1))"
        case .fault(let fault): "fault:\(fault.code)"
        default: "other"
        }
    }

    @Test func everyConsumerHearsTheProcessorOnceAfterTheCentersObserversInOrder() throws {
        let source = ScriptedHeadingSource(name: "compass")
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let processor = HeadingProcessor(inputs: [(proxy, .init())], configuration: .init(magneticModel: nil), delivery: .immediate)
        let center = NotificationCenter()
        let bridge = HeadingNotificationBridge(processor: processor, center: center)
        defer { bridge.cancel() }
        let fanOut = HeadingFanOut()
        let stage = try #require(fanOut.attach(processor))
        let log = Log()
        let observation = center.addHeadingEventObserver { log.add("center \(Self.describe($0))") }
        defer { observation.cancel() }
        let every = fanOut.consume(latestOnly: false) { log.add("every \(Self.describe($0))") }
        let latest = fanOut.consume(latestOnly: true) { log.add("latest \(Self.describe($0))") }
        #expect(fanOut.consumerCount == 2)
        processor.start()
        proxy.enable()
        source.send(.heading(Self.heading(10)))
        // The authorization first (an event like any other), then the heading.
        #expect(log.all == ["center other", "every other", "latest other", "center 10", "every 10", "latest 10"], "\(log.all)")
        // A batch (a flat-out replay's): every consumer hears all of it; a latest-only one its newest heading.
        log.entries.withLock { $0.removeAll() }
        source.send(headings: [Self.heading(11), Self.heading(12), Self.heading(13)])
        #expect(log.all.filter { $0.hasPrefix("every") } == ["every 11", "every 12", "every 13"], "\(log.all)")
        #expect(log.all.filter { $0.hasPrefix("latest") } == ["latest 13"], "\(log.all)")
        #expect(log.all.filter { $0.hasPrefix("center") }.count == 3 && log.all.first == "center 11", "the center first: \(log.all)")
        // Cancelled, a consumer hears nothing more; detached, no consumer does (a reload's old processor).
        latest.cancel()
        #expect(fanOut.consumerCount == 1)
        log.entries.withLock { $0.removeAll() }
        source.send(.heading(Self.heading(14)))
        #expect(log.all == ["center 14", "every 14"])
        stage.cancel()
        log.entries.withLock { $0.removeAll() }
        source.send(.heading(Self.heading(15)))
        #expect(log.all == ["center 15"])
        every.cancel()
        processor.stop()
        proxy.disable()
    }

    @Test func aConsumerMaySubscribeAndCancelFromInsideItsBlock() {
        let fanOut = HeadingFanOut()
        let log = Log()
        let inner = Mutex<(any HeadingEventSubscription)?>(nil)
        let outer = fanOut.consume(latestOnly: false) { event in
            log.add("outer \(Self.describe(event))")
            inner.withLock { inner in
                if inner == nil { inner = fanOut.consume(latestOnly: false) { log.add("inner \(Self.describe($0))") } } else { inner?.cancel() }
            }
        }
        fanOut.deliver(.heading(Self.heading(1)))  // subscribes inner (which hears from the next event on)
        fanOut.deliver(.heading(Self.heading(2)))  // inner hears it; outer cancels inner
        fanOut.deliver(.heading(Self.heading(3)))
        #expect(log.all == ["outer 1", "outer 2", "inner 2", "outer 3"], "\(log.all)")
        outer.cancel()
        #expect(fanOut.consumerCount == 0)
    }

    @Test func aReleasedSubscriptionEndsItsConsumer() {
        let fanOut = HeadingFanOut()
        var subscription: (any HeadingEventSubscription)? = fanOut.consume(latestOnly: true) { _ in }
        #expect(fanOut.consumerCount == 1 && subscription != nil)
        subscription = nil
        #expect(fanOut.consumerCount == 0)
    }
}
