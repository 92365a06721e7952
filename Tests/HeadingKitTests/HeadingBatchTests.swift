// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Clocks
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

/// Batches: a flat-out replay reports its headings several at a time, the center carries a batch
/// as one notification, and every typed way of observing still hands out one event at a time.
struct HeadingBatchTests {
    /// What a delegate was called with, call by call.
    private final class CallRecorder: HeadingSourceDelegate {
        enum Call: Equatable {
            case heading
            case batch(Int)
            case fault
            case authorization
        }

        private let state = Mutex<(calls: [Call], headings: [Heading])>(([], []))
        var calls: [Call] { state.withLock { $0.calls } }
        var headings: [Heading] { state.withLock { $0.headings } }

        func headingSource(_ source: any HeadingSource, didUpdate heading: Heading) {
            state.withLock {
                $0.calls.append(.heading)
                $0.headings.append(heading)
            }
        }
        func headingSource(_ source: any HeadingSource, didUpdateHeadings headings: [Heading]) {
            state.withLock {
                $0.calls.append(.batch(headings.count))
                $0.headings += headings
            }
        }
        func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault) {
            state.withLock { $0.calls.append(.fault) }
        }
        func headingSource(_ source: any HeadingSource, didChangeAuthorization status: HeadingAuthorizationStatus) {
            state.withLock { $0.calls.append(.authorization) }
        }
    }

    private static func hdt(_ index: Int) -> String { nmea("GPHDT,\(Double(index % 3600) / 10),T") }

    @Test func aFlatOutReplayReportsBatchesAndAFaultAfterTheHeadingsBeforeIt() async throws {
        let size = ReplayHeadingSource.batchSize
        let lines = (0..<(2 * size + 88)).map(Self.hdt) + ["$GPHDT,12.0,T*00"] + (0..<10).map(Self.hdt)
        let file = try TemporaryFile(lines: lines)
        let source = ReplayHeadingSource(configuration: .init(path: file.path, speed: .flatOut))
        let recorder = CallRecorder()
        source.delegate = recorder
        source.start()
        let summary = await source.waitUntilFinished()
        #expect(recorder.calls == [.batch(size), .batch(size), .batch(88), .fault, .batch(10)])
        let expected: [Double] = (0..<(2 * size + 88)).map { (index: Int) in Double(index % 3600) / 10 }
            + (0..<10).map { (index: Int) in Double(index) / 10 }
        #expect(recorder.headings.map(\.trueHeading) == expected)
        #expect(summary.headings == 2 * size + 98)
        #expect(summary.faults == 1)
    }

    @Test func aReplayAtARecordedSpeedReportsOneHeadingAtATime() async throws {
        let file = try TemporaryFile(lines: (0..<5).map(Self.hdt))
        let source = ReplayHeadingSource(
            configuration: .init(path: file.path, speed: .recorded(multiplier: 1000)), clock: ImmediateClock()
        )
        let recorder = CallRecorder()
        source.delegate = recorder
        source.start()
        _ = await source.waitUntilFinished()
        #expect(recorder.calls == Array(repeating: .heading, count: 5))
    }

    @Test func aBatchIsOneNotificationAndEveryTypedObserverSeesEachHeadingInOrder() async {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        defer { bridge.cancel() }
        let names = Mutex<[Notification.Name]>([])
        let carried = Mutex<[HeadingEvent]>([])
        let raw = center.addObserver(forName: nil, object: proxy, queue: nil) { notification in
            names.withLock { $0.append(notification.name) }
            carried.withLock { $0 += notification.headingEvents }
        }
        defer { center.removeObserver(raw) }
        let single = Mutex(0)
        let singleNamed = center.addObserver(forName: .headingDidUpdate, object: nil, queue: nil) { _ in single.withLock { $0 += 1 } }
        defer { center.removeObserver(singleNamed) }
        let observed = EventRecorder()
        let observation = center.addHeadingEventObserver(from: proxy) { observed.record($0) }
        defer { observation.cancel() }
        let published = EventRecorder()
        let cancellable = center.headingPublisher(from: proxy).sink { @Sendable in published.record(.heading($0)) }
        defer { cancellable.cancel() }
        let fromProxy = EventRecorder()
        let proxySink = proxy.publisher.sink { @Sendable in fromProxy.record($0) }
        defer { proxySink.cancel() }
        let stream = center.headings(from: proxy, bufferingPolicy: .unbounded)

        proxy.enable()
        let batch = (0..<300).map { heading(Double($0)) }
        source.send(headings: batch)
        source.send(.fault(fault()))
        source.send(headings: [heading(400)])  // a batch of one is an ordinary notification

        let expected = batch.map { HeadingEvent.heading($0) } + [.fault(fault()), .heading(heading(400))]
        #expect(names.withLock { $0 } == [.headingAuthorizationDidChange, .headingBatchDidArrive, .headingDidFail, .headingDidUpdate])
        #expect(carried.withLock { $0 } == [.authorizationChanged(.authorized)] + expected)
        #expect(single.withLock { $0 } == 1, "an observer of one name sees live headings only")
        #expect(observed.events == [.authorizationChanged(.authorized)] + expected)
        #expect(published.headings == batch + [heading(400)])
        #expect(fromProxy.events == [.authorizationChanged(.authorized)] + expected)
        #expect(await collect(301, from: stream) == batch + [heading(400)])
    }

    @Test func disablingFromASinkEndsABatchThereForEverySubscriber() {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        defer { bridge.cancel() }
        let observed = EventRecorder()
        let observation = center.addHeadingEventObserver(from: proxy) { observed.record($0) }
        defer { observation.cancel() }
        let sink = proxy.publisher.sink { @Sendable [weak proxy] event in
            if event.heading?.trueHeading == 99 { proxy?.disable() }
        }
        defer { sink.cancel() }
        proxy.enable()
        source.send(headings: (0..<300).map { heading(Double($0)) })
        #expect(observed.headings.map(\.trueHeading) == (0..<100).map { (index: Int) in Double(index) })
    }

    @Test func aProcessorPassesABatchOnAsOneNotification() {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let processor = HeadingProcessor(inputs: [(proxy, .init())], configuration: .init(), delivery: .immediate, clock: TestClock())
        let bridge = HeadingNotificationBridge(processor: processor, center: center)
        defer { bridge.cancel() }
        let names = Mutex<[Notification.Name]>([])
        let raw = center.addObserver(forName: nil, object: processor, queue: nil) { notification in
            names.withLock { $0.append(notification.name) }
        }
        defer { center.removeObserver(raw) }
        let observed = EventRecorder()
        let observation = center.addHeadingEventObserver(from: processor) { observed.record($0) }
        defer { observation.cancel() }
        processor.start()
        proxy.enable()
        defer {
            processor.stop()
            proxy.disable()
        }
        source.send(headings: (0..<300).map { heading(Double($0)) })
        #expect(names.withLock { $0 }.filter { $0 == .headingBatchDidArrive }.count == 1)
        #expect(observed.headings.map(\.trueHeading) == (0..<300).map { (index: Int) in Double(index) })
    }
}
