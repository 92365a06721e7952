// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

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

struct HeadingNotificationTests {
    @Test func theHeadingCenterIsDedicatedNotDefault() {
        #expect(NotificationCenter.heading !== NotificationCenter.default)
        #expect(NotificationCenter.heading === NotificationCenter.heading)
    }

    @Test func everyProxyEventReachesObserversInOrder() {
        let center = NotificationCenter()  // each test its own center: tests run in parallel
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        defer { bridge.cancel() }
        let recorder = EventRecorder()
        let names = NamesRecorder()
        let token = center.addObserver(forName: nil, object: proxy, queue: nil) { notification in
            names.append(notification.name)
            if let event = notification.headingEvent { recorder.record(event) }
        }
        defer { center.removeObserver(token) }

        proxy.enable()
        var expected: [HeadingEvent] = [.authorizationChanged(.authorized)]
        for index in 0..<200 {
            if index % 50 == 25 {
                let lost = fault(.deviceLost)
                source.send(.fault(lost))
                expected.append(.fault(lost))
            } else {
                let next = heading(Double(index) * 1.9)
                source.send(.heading(next))
                expected.append(.heading(next))
            }
        }
        source.send(.authorizationChanged(.denied))
        expected.append(.authorizationChanged(.denied))

        // Losing authorization while enabled adds a permissionDenied fault, stamped as it happens.
        let events = recorder.events
        #expect(events.count == expected.count + 1)
        #expect(Array(events.dropLast()) == expected)
        #expect(events.last?.fault?.code == .permissionDenied)
        #expect(names.values.first == .headingAuthorizationDidChange)
        #expect(names.values.filter { $0 == .headingDidFail }.count == 5)
        #expect(names.values.filter { $0 == .headingDidUpdate }.count == 196)
    }

    @Test func typedAccessorsReadOnlyTheirOwnName() {
        let update = Notification.heading(.heading(heading(12)), object: nil)
        #expect(update.name == .headingDidUpdate)
        #expect(update.heading?.trueHeading == 12)
        #expect(update.headingFault == nil)
        #expect(update.headingAuthorizationStatus == nil)
        let failure = Notification.heading(.fault(fault(.stale)), object: nil)
        #expect(failure.name == .headingDidFail)
        #expect(failure.headingFault?.code == .stale)
        #expect(failure.heading == nil)
        let change = Notification.heading(.authorizationChanged(.denied), object: nil)
        #expect(change.name == .headingAuthorizationDidChange)
        #expect(change.headingAuthorizationStatus == .denied)
        #expect(Notification(name: .headingDidUpdate).heading == nil)
        #expect(Notification(name: Notification.Name("other")).headingEvent == nil)
    }

    /// For a consumer that keeps only the newest heading (the daemon's metrics): every other
    /// event in order, and the last heading, from a single event or a batch.
    @Test func forEachNonHeadingEventGivesTheOthersInOrderAndTheLastHeading() {
        var others: [HeadingEvent] = []
        let batch = Notification.heading(
            contentsOf: [.heading(heading(1)), .fault(fault(.stale)), .heading(heading(2)), .authorizationChanged(.authorized), .heading(heading(3))],
            object: nil
        )
        #expect(batch.forEachNonHeadingEvent { others.append($0) }?.trueHeading == 3)
        #expect(others == [.fault(fault(.stale)), .authorizationChanged(.authorized)])
        others = []
        #expect(Notification.heading(.fault(fault(.deviceLost)), object: nil).forEachNonHeadingEvent { others.append($0) } == nil)
        #expect(others == [.fault(fault(.deviceLost))])
        #expect(Notification.heading(.heading(heading(7)), object: nil).forEachNonHeadingEvent { others.append($0) }?.trueHeading == 7)
        #expect(others.count == 1)
        #expect(Notification(name: .headingDidUpdate).forEachNonHeadingEvent { others.append($0) } == nil)
    }

    @Test func theAsyncSequenceYieldsTypedHeadingsInOrder() async {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        defer { bridge.cancel() }
        let headings = center.headings(from: proxy)
        let events = center.headingEvents()
        proxy.enable()
        source.send(trueHeading: 1)
        source.send(.fault(fault()))
        source.send(trueHeading: 2)
        #expect(await collect(2, from: headings).map(\.trueHeading) == [1, 2])
        let all = await collect(4, from: events)
        #expect(all.count == 4)
        #expect(all.first == .authorizationChanged(.authorized))
        #expect(all.last?.heading?.trueHeading == 2)
    }

    @Test func thePublisherYieldsTypedHeadings() {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        defer { bridge.cancel() }
        let recorder = EventRecorder()
        let cancellable = center.headingPublisher(from: proxy).sink { @Sendable heading in
            recorder.record(.heading(heading))
        }
        defer { cancellable.cancel() }
        proxy.enable()
        source.send(trueHeading: 7)
        source.send(.fault(fault()))
        source.send(trueHeading: 8)
        #expect(recorder.headings.map(\.trueHeading) == [7, 8])
    }

    @Test func faultsHaveAPublisherAndASequenceOnTheCenterToo() async {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        defer { bridge.cancel() }
        let published = EventRecorder()
        let cancellable = center.faultPublisher(from: proxy).sink { @Sendable in published.record(.fault($0)) }
        defer { cancellable.cancel() }
        let faults = center.faults(from: proxy)
        proxy.enable()
        source.send(trueHeading: 1)
        source.send(.fault(fault(.deviceLost)))
        source.send(.fault(fault(.sourceUnavailable)))
        #expect(published.events.compactMap(\.fault).map(\.code) == [.deviceLost, .sourceUnavailable])
        #expect(await collect(2, from: faults).map(\.code) == [.deviceLost, .sourceUnavailable])
    }

    /// Apple Foundation's spellings, which swift-corelibs-foundation lacks (HeadingKit adds them on Linux).
    @Test func publisherForAndNotificationsNamedWorkAsOnApplePlatforms() async {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        defer { bridge.cancel() }
        let published = EventRecorder()
        let cancellable = center.publisher(for: .headingDidUpdate, object: proxy)
            .compactMap(\.heading)
            .sink { @Sendable in published.record(.heading($0)) }
        let notifications = center.notifications(named: .headingDidFail, object: proxy)
        proxy.enable()
        source.send(trueHeading: 5)
        source.send(.fault(fault(.deviceLost)))
        cancellable.cancel()
        source.send(trueHeading: 6)  // after cancel: not received
        #expect(published.headings.map(\.trueHeading) == [5])
        var iterator = notifications.makeAsyncIterator()
        #expect(await iterator.next()?.headingFault?.code == .deviceLost)
    }

    @Test func anObservationEndsWhenCancelledOrReleasedAndIsSendable() {
        let center = NotificationCenter()
        let recorder = EventRecorder()
        var observation: HeadingObservation? = center.addHeadingEventObserver { recorder.record($0) }
        let released = center.addHeadingEventObserver { recorder.record($0) }
        // A Sendable model can hold it: no nonisolated(unsafe).
        let holder: any Sendable = released
        center.post(Notification.heading(.heading(heading(1)), object: nil))
        #expect(recorder.headings.count == 2)
        released.cancel()
        #expect(released.isCancelled)
        center.post(Notification.heading(.heading(heading(2)), object: nil))
        #expect(recorder.headings.count == 3)
        observation = nil  // released: its observer goes
        center.post(Notification.heading(.heading(heading(3)), object: nil))
        #expect(recorder.headings.count == 3)
        _ = observation
        withExtendedLifetime(holder) {}  // `released` was held all along: cancelling, not its release, ended it
    }

    @Test func theBridgeCarriesOnAcrossDisableAndEnable() {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source)
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        let recorder = EventRecorder()
        let token = center.addHeadingEventObserver(from: proxy) { recorder.record($0) }
        defer { center.removeObserver(token) }
        proxy.enable()
        source.send(trueHeading: 1)
        proxy.disable()
        proxy.enable()
        source.send(trueHeading: 2)
        bridge.cancel()
        source.send(trueHeading: 3)
        #expect(recorder.headings.map(\.trueHeading) == [1, 2])
    }
}

/// Notification names in the order observed.
private final class NamesRecorder: Sendable {
    private let names = Mutex<[Notification.Name]>([])
    var values: [Notification.Name] { names.withLock { $0 } }
    func append(_ name: Notification.Name) { names.withLock { $0.append(name) } }
}
