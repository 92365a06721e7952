// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import HeadingKit
import HeadingKitTesting
import Synchronization
import Testing

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

struct HeadingProxyTests {
    /// Subscribes a recorder to the proxy's publisher.
    private func record(_ proxy: HeadingProxy) -> (EventRecorder, AnyCancellable) {
        let recorder = EventRecorder()
        let cancellable = proxy.publisher.sink(
            receiveCompletion: { @Sendable _ in recorder.recordCompletion() },
            receiveValue: { @Sendable event in recorder.record(event) }
        )
        return (recorder, cancellable)
    }

    @Test func enableStartsTheSourceOnceAndDisableStopsItOnce() {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        proxy.enable()
        proxy.enable()
        #expect(proxy.isEnabled)
        #expect(source.startCount == 1)
        #expect(source.authorizationRequestCount == 1)
        proxy.disable()
        proxy.disable()
        #expect(!proxy.isEnabled)
        #expect(source.stopCount == 1)
        #expect(!source.isRunning)
        proxy.enable()
        #expect(source.startCount == 2)
        #expect(source.authorizationRequestCount == 1, "authorization is asked once, not on every enable")
    }

    @Test func headingsReachThePublisherOnlyWhileEnabled() {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        source.send(trueHeading: 1)
        proxy.enable()
        source.send(trueHeading: 2)
        proxy.disable()
        source.send(trueHeading: 3)
        #expect(recorder.headings.map(\.trueHeading) == [2])
    }

    @Test func disablePausesSubscribersWhoGetTheNextEnable() async {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        let headings = proxy.headings()
        let faults = proxy.faults()
        // Subscribe once, toggle three times (the pattern of a switch in an app).
        for round in 1...3 {
            proxy.enable()
            source.send(trueHeading: Double(round))
            source.send(.fault(fault(.deviceLost)))
            proxy.disable()
            source.send(trueHeading: 100 + Double(round))  // in flight after disable(): dropped
        }
        #expect(recorder.completions == 0)
        #expect(recorder.headings.map(\.trueHeading) == [1, 2, 3])
        #expect(await collect(3, from: headings).map(\.trueHeading) == [1, 2, 3])
        #expect(await collect(3, from: faults).map(\.code) == [.deviceLost, .deviceLost, .deviceLost])
        #expect(source.startCount == 3)
        #expect(source.stopCount == 3)
    }

    @Test func aReportQueuedBeforeDisableIsDroppedButAnAuthorizationChangeIsNot() {
        let queue = DispatchQueue(label: "test.delivery")
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .queue(queue))
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        queue.suspend()
        proxy.enable()  // authorized (queued), started
        source.send(trueHeading: 1)  // queued
        proxy.disable()
        queue.resume()
        queue.sync {}  // everything queued so far has run
        #expect(recorder.events == [.authorizationChanged(.authorized)])
        proxy.enable()
        source.send(trueHeading: 2)
        queue.sync {}
        #expect(recorder.headings.map(\.trueHeading) == [2])
    }

    @Test func aQueueDeliveryCallsSubscribersOnThatQueueInOrder() async {
        let queue = DispatchQueue(label: "test.delivery")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .queue(queue))
        let onQueue = EventRecorder()
        let cancellable = proxy.headingPublisher.sink { @Sendable heading in
            if DispatchQueue.getSpecific(key: key) == true { onQueue.record(.heading(heading)) }
        }
        defer { cancellable.cancel() }
        proxy.enable()
        for value in 0..<100 { source.send(trueHeading: Double(value)) }
        queue.sync {}
        #expect(onQueue.headings.map(\.trueHeading) == (0..<100).map { Double($0) })
    }

    @Test func createdOffTheMainThreadTheDefaultDeliveryIsImmediate() async {
        let proxy = await Task.detached { HeadingProxy(source: ScriptedHeadingSource()) }.value
        #expect(proxy.delivery.isImmediate)
    }

    @Test func theProxyGoingAwayFinishesSubscribersAndStopsTheSource() async {
        let source = ScriptedHeadingSource()
        var proxy: HeadingProxy? = HeadingProxy(source: source)
        let (recorder, cancellable) = record(proxy!)
        let stream = proxy!.events()
        proxy!.enable()
        proxy = nil
        #expect(recorder.completions == 1)
        #expect(source.stopCount == 1)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first == .authorizationChanged(.authorized))
        #expect(second == nil, "the stream finished")
        cancellable.cancel()
    }

    @Test func headingFilterAppliesAcrossNorthInBothDirections() {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        proxy.headingFilter = 1
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        proxy.enable()
        for value in [359.5, 0.3, 0.6, 0.0, 359.4, 358.5, 359.9, 0.5] { source.send(trueHeading: value) }
        #expect(recorder.headings.map(\.trueHeading) == [359.5, 0.6, 359.4, 0.5])
    }

    @Test func defaultFilterDeliversEveryHeading() {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        #expect(proxy.headingFilter == HeadingProxy.headingFilterNone)
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        proxy.enable()
        for value in [10.0, 10.0, 10.01] { source.send(trueHeading: value) }
        #expect(recorder.headings.count == 3)
    }

    @Test func aFaultEndsNeitherThePublisherNorTheAsyncSequence() async {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        let headings = proxy.headings()
        let events = proxy.events()
        proxy.enable()
        source.send(trueHeading: 10)
        source.send(.fault(fault(.deviceLost)))
        source.send(.fault(fault(.sourceUnavailable)))
        source.send(trueHeading: 11)
        source.send(trueHeading: 12)
        #expect(recorder.completions == 0)
        #expect(recorder.headings.map(\.trueHeading) == [10, 11, 12])
        #expect(await collect(3, from: headings).map(\.trueHeading) == [10, 11, 12])
        let all = await collect(6, from: events)
        #expect(all.count == 6)
        #expect(all.map(\.fault?.code) == [nil, nil, .deviceLost, .sourceUnavailable, nil, nil])
    }

    @Test func authorizationChangesArePublished() {
        let source = ScriptedHeadingSource(authorization: .authorized)
        let proxy = HeadingProxy(source: source)
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        #expect(proxy.authorizationStatus == .notDetermined)
        proxy.requestAuthorization()
        #expect(proxy.authorizationStatus == .authorized)
        source.send(.authorizationChanged(.authorized))  // no change: not published again
        source.send(.authorizationChanged(.denied))
        #expect(proxy.authorizationStatus == .denied)
        #expect(recorder.events == [.authorizationChanged(.authorized), .authorizationChanged(.denied)])
    }

    @Test func deniedSourceIsNotStartedAndTheReasonIsReported() {
        let source = ScriptedHeadingSource(authorization: .denied)
        let proxy = HeadingProxy(source: source)
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        proxy.enable()
        #expect(source.startCount == 0)
        #expect(proxy.authorizationStatus == .denied)
        #expect(recorder.events.first == .authorizationChanged(.denied))
        #expect(recorder.events.last?.fault?.code == .permissionDenied)
    }

    @Test func aSourceThatCanOnlyTellByTryingIsStartedAndStaysUndeterminedUntilItAnswers() {
        let source = ScriptedHeadingSource(authorization: .notDetermined)
        let proxy = HeadingProxy(source: source)
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        proxy.enable()
        #expect(source.startCount == 1)
        #expect(proxy.authorizationStatus == .notDetermined)
        source.send(.authorizationChanged(.authorized))
        #expect(proxy.authorizationStatus == .authorized)
        #expect(source.startCount == 1)
        #expect(recorder.events == [.authorizationChanged(.authorized)])
    }

    /// A replay of an unreadable file: the source reports its fault (naming the file), then `.denied`.
    private func refuse(_ source: ScriptedHeadingSource) {
        source.send(.fault(HeadingFault(code: .permissionDenied, source: "scripted", reason: "/var/log/boat.nmea: permission denied")))
        source.send(.authorizationChanged(.denied))
    }

    @Test(arguments: [true, false])
    func aRefusalIsOneFaultWithItsReasonWhateverTheOrderOfRequestAndEnable(requestFirst: Bool) {
        let source = ScriptedHeadingSource(authorization: .notDetermined)
        let proxy = HeadingProxy(source: source)
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        if requestFirst {
            proxy.requestAuthorization()
            refuse(source)
            proxy.enable()
        } else {
            proxy.enable()
            refuse(source)
        }
        let faults = recorder.events.compactMap(\.fault)
        #expect(faults.count == 1)
        #expect(faults.first?.code == .permissionDenied)
        #expect(faults.first?.reason == "/var/log/boat.nmea: permission denied")
        #expect(proxy.authorizationStatus == .denied)
        // Each enable() of a refused proxy says so once more, with the same reason.
        proxy.disable()
        proxy.enable()
        #expect(recorder.events.compactMap(\.fault).map(\.reason) == Array(repeating: "/var/log/boat.nmea: permission denied", count: 2))
    }

    @Test func configurationRestrictionIsPublishedAndTheSourceNeverAskedOrStarted() {
        let source = ScriptedHeadingSource(authorization: .authorized)
        let proxy = HeadingProxy(source: source, restrictionReason: "only gpsd sources are allowed")
        let (recorder, cancellable) = record(proxy)
        defer { cancellable.cancel() }
        proxy.requestAuthorization()
        #expect(proxy.authorizationStatus == .restricted)
        proxy.enable()
        source.send(.authorizationChanged(.authorized))
        #expect(proxy.authorizationStatus == .restricted)
        #expect(source.authorizationRequestCount == 0)
        #expect(source.startCount == 0)
        #expect(recorder.events.first == .authorizationChanged(.restricted))
        let reported = recorder.events.compactMap(\.fault)
        #expect(reported.count == 1)
        #expect(reported.first?.reason.contains("only gpsd sources are allowed") == true)
    }

    @Test func slowConsumerLosesNothingWithinTheBuffer() async {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        let headings = proxy.headings(bufferingPolicy: .bufferingNewest(500))
        proxy.enable()
        for index in 0..<500 { source.send(trueHeading: Double(index) / 2) }
        var received: [Double] = []
        for await heading in headings {
            await Task.yield()  // a consumer slower than the producer
            received.append(heading.trueHeading!)
            if received.count == 500 { break }
        }
        #expect(received == (0..<500).map { (index: Int) in Double(index) / 2 })
    }

    @Test func consumersStoppingWhileHeadingsFlowNeverDeadlockTheSource() async {
        // A consumer that stops (its task cancelled) while it waits for the next heading: the
        // runtime ends its stream holding its lock on that task, and the source's yield to it
        // needs that lock too. The proxy must not hold its own lock on both paths.
        let source = ScriptedHeadingSource(name: "flood")
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        proxy.enable()
        let counters = FloodCounters()
        Thread {
            while counters.isFlooding { source.send(trueHeading: 1); counters.sent() }
        }.start()
        defer { counters.stop() }
        let rounds = Recorder<Int>()
        Thread {
            for round in 0..<300 {
                let first = DispatchSemaphore(value: 0)
                let consumer = Task {
                    for await _ in proxy.headings() { first.signal() }
                }
                first.wait()
                consumer.cancel()
                rounds.record(round)
            }
        }.start()
        #expect(await rounds.wait(timeout: .seconds(60)) { $0.count == 300 }, "\(rounds.events.count) of 300 consumers stopped")
        let sentBefore = counters.count
        #expect(await counters.waitUntil(timeout: .seconds(10)) { $0 > sentBefore + 1000 }, "the source is stuck")
    }

    @Test func bufferingPolicyDropsOnlyWhatItSays() async {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        let headings = proxy.headings(bufferingPolicy: .bufferingNewest(3))
        proxy.enable()
        for value in [1.0, 2, 3, 4, 5] { source.send(trueHeading: value) }
        let received = await collect(3, from: headings).map(\.trueHeading)
        #expect(received == [3, 4, 5])
    }

    @Test func aSinkMayDisableTheProxyFromInsideADelivery() {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        let recorder = EventRecorder()
        let cancellable = proxy.headingPublisher.sink { @Sendable heading in
            recorder.record(.heading(heading))
            proxy.disable()
        }
        defer { cancellable.cancel() }
        proxy.enable()
        source.send(trueHeading: 5)
        source.send(trueHeading: 6)
        #expect(recorder.headings.map(\.trueHeading) == [5])
        #expect(!proxy.isEnabled)
        #expect(source.stopCount == 1)
    }
}

/// The flooding thread's switch and count.
private final class FloodCounters: Sendable {
    private let state = Mutex((flooding: true, sent: 0))

    var isFlooding: Bool { state.withLock { $0.flooding } }
    var count: Int { state.withLock { $0.sent } }
    func sent() { state.withLock { $0.sent += 1 } }
    func stop() { state.withLock { $0.flooding = false } }

    /// Polls the count until `condition` holds: a count has no event to await.
    func waitUntil(timeout: Duration, _ condition: (Int) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(count) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(count)
    }
}
