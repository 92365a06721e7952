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

/// "No headings without authorization": a `denied` that comes at any moment — before
/// `start()`, while headings wait for delivery, after the source has run undetermined or
/// authorized — stops delivery (and the source, unless it finds out by itself), in every
/// delivery mode, until authorization is granted again.
struct HeadingProxyLateDenialTests {
    /// The delivery modes: at once, and on a queue of the test's.
    static let deliveries: [String] = ["immediate", "queue"]

    private static func proxy(_ source: any HeadingSource, _ mode: String) -> (HeadingProxy, DispatchQueue?) {
        if mode == "queue" {
            let queue = DispatchQueue(label: "test.late-denial")
            return (HeadingProxy(source: source, delivery: .queue(queue)), queue)
        }
        return (HeadingProxy(source: source, delivery: .immediate), nil)
    }

    private static func record(_ proxy: HeadingProxy) -> (EventRecorder, AnyCancellable) {
        let recorder = EventRecorder()
        let cancellable = proxy.publisher.sink { @Sendable event in recorder.record(event) }
        return (recorder, cancellable)
    }

    /// Answered before start: the source never starts, nothing is delivered.
    @Test(arguments: deliveries)
    func aDenialBeforeStartStartsNothing(_ mode: String) {
        let source = ScriptedHeadingSource(authorization: .denied)
        let (proxy, queue) = Self.proxy(source, mode)
        let (recorder, cancellable) = Self.record(proxy)
        defer { cancellable.cancel() }
        proxy.enable()
        source.send(trueHeading: 1)
        queue?.sync {}
        #expect(source.startCount == 0)
        #expect(recorder.headings.isEmpty)
        #expect(proxy.authorizationStatus == .denied)
    }

    /// Answered a moment after start (the source ran undetermined): stopped, and nothing after
    /// the answer is delivered, in whatever order the source's thread reports it.
    @Test(arguments: deliveries)
    func aDenialAfterAnUndeterminedStartStopsTheSourceAndItsHeadings(_ mode: String) {
        let source = ScriptedHeadingSource(authorization: .notDetermined)
        let (proxy, queue) = Self.proxy(source, mode)
        let (recorder, cancellable) = Self.record(proxy)
        defer { cancellable.cancel() }
        proxy.enable()
        #expect(source.isRunning)
        source.send(trueHeading: 1)
        queue?.sync {}  // delivered before the answer comes (one still queued is dropped: below)
        source.send(.authorizationChanged(.denied))
        source.send(trueHeading: 2)  // a report already in flight on the source's thread
        source.send(headings: [Heading(trueHeading: 3, magneticHeading: nil, timestamp: Date(timeIntervalSince1970: 0), source: source.name)])
        queue?.sync {}
        #expect(!source.isRunning && source.stopCount == 1)
        #expect(recorder.headings.map(\.trueHeading) == [1])
        #expect(proxy.authorizationStatus == .denied)
        #expect(recorder.events.contains { $0.fault?.code == .permissionDenied })
        // Granted again: started again, headings again.
        source.send(.authorizationChanged(.authorized))
        #expect(source.isRunning && source.startCount == 2)
        source.send(trueHeading: 4)
        queue?.sync {}
        #expect(recorder.headings.map(\.trueHeading) == [1, 4])
    }

    /// Headings that were waiting for their turn on the delivery queue when the denial came are
    /// dropped with it.
    @Test func headingsQueuedBeforeADenialAreDropped() {
        let queue = DispatchQueue(label: "test.late-denial.queued")
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .queue(queue))
        let (recorder, cancellable) = Self.record(proxy)
        defer { cancellable.cancel() }
        proxy.enable()
        queue.sync {}
        queue.suspend()
        source.send(trueHeading: 1)  // queued
        source.send(.authorizationChanged(.denied))
        queue.resume()
        queue.sync {}
        #expect(recorder.headings.isEmpty)
        #expect(recorder.events.last?.fault?.code == .permissionDenied)
    }

    /// A denial after the source ran authorized: the same.
    @Test(arguments: deliveries)
    func aDenialOfARunningAuthorizedSourceStopsIt(_ mode: String) {
        let source = ScriptedHeadingSource()
        let (proxy, queue) = Self.proxy(source, mode)
        let (recorder, cancellable) = Self.record(proxy)
        defer { cancellable.cancel() }
        proxy.enable()
        source.send(trueHeading: 1)
        queue?.sync {}
        source.send(.authorizationChanged(.denied))
        source.send(trueHeading: 2)
        queue?.sync {}
        #expect(!source.isRunning)
        #expect(recorder.headings.map(\.trueHeading) == [1])
    }

    /// A source that finds out by itself (a device that may be opened again) keeps running,
    /// delivering nothing while refused, and its headings flow again once it says authorized.
    @Test(arguments: deliveries)
    func aSourceThatKeepsTryingRunsOnButDeliversNothingWhileRefused(_ mode: String) {
        let source = TryingSource()
        let (proxy, queue) = Self.proxy(source, mode)
        let (recorder, cancellable) = Self.record(proxy)
        defer { cancellable.cancel() }
        proxy.enable()
        source.scripted.send(.authorizationChanged(.denied))
        source.scripted.send(trueHeading: 1)
        queue?.sync {}
        #expect(source.scripted.isRunning && source.scripted.stopCount == 0)
        #expect(recorder.headings.isEmpty)
        source.scripted.send(.authorizationChanged(.authorized))
        source.scripted.send(trueHeading: 2)
        queue?.sync {}
        #expect(recorder.headings.map(\.trueHeading) == [2])
    }

    /// The async sequence, too.
    @Test func theAsyncSequenceGetsNothingAfterADenial() async {
        let source = ScriptedHeadingSource(authorization: .notDetermined)
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let headings = proxy.headings()
        proxy.enable()
        source.send(trueHeading: 1)
        source.send(.authorizationChanged(.denied))
        source.send(trueHeading: 2)
        source.send(.authorizationChanged(.authorized))
        source.send(trueHeading: 3)
        var seen: [Double?] = []
        for await heading in headings {
            seen.append(heading.trueHeading)
            if seen.count == 2 { break }
        }
        #expect(seen == [1, 3])
    }
}

/// A scripted source that says it keeps trying after a denial.
private final class TryingSource: HeadingSource, HeadingSourceDelegate, @unchecked Sendable {
    // @unchecked: `delegate` is set once by the proxy before any report; `scripted` is Sendable.
    let scripted = ScriptedHeadingSource(authorization: .notDetermined)
    var name: String { scripted.name }
    weak var delegate: (any HeadingSourceDelegate)?
    var keepsTryingAfterDenial: Bool { true }
    init() { scripted.delegate = self }
    func requestAuthorization() { scripted.requestAuthorization() }
    func start() { scripted.start() }
    func stop() { scripted.stop() }
    func headingSource(_ source: any HeadingSource, didUpdate heading: Heading) { delegate?.headingSource(self, didUpdate: heading) }
    func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault) { delegate?.headingSource(self, didFailWith: fault) }
    func headingSource(_ source: any HeadingSource, didChangeAuthorization status: HeadingAuthorizationStatus) {
        delegate?.headingSource(self, didChangeAuthorization: status)
    }
}

/// The faults that explain a refusal reach every subscriber, before the refusal: a source that
/// reports `permissionDenied` with its reason, then `denied`, from `requestAuthorization()` (the
/// pattern the docs show). Headings queued before the refusal go; the faults do not.
struct HeadingProxyRefusalReasonTests {
    @Test func theRefusalsFaultIsDeliveredBeforeItOnAQueue() async {
        let queue = DispatchQueue(label: "test.refusal-reason")
        let source = RefusingSource()
        let proxy = HeadingProxy(source: source, delivery: .queue(queue))
        let faults = proxy.faults()
        let recorder = EventRecorder()
        let cancellable = proxy.publisher.sink { @Sendable event in recorder.record(event) }
        defer { cancellable.cancel() }
        queue.suspend()  // everything the source says waits for its turn
        proxy.enable()
        queue.resume()
        queue.sync {}
        let kinds = recorder.events.map { event -> String in
            if let fault = event.fault { return "fault \(fault.code)" }
            if case .authorizationChanged(let status) = event { return "authorization \(status)" }
            return "heading"
        }
        #expect(kinds == ["fault permissionDenied", "authorization denied"])
        #expect(recorder.events.first?.fault?.reason == RefusingSource.reason)
        #expect(await Self.first(of: faults)?.reason == RefusingSource.reason)
    }

    /// What a proxy made on the main thread delivers through (``HeadingDelivery/automatic`` is
    /// `.main` there; under Swift Testing on Linux the main queue is drained by a worker thread
    /// after `dispatchMain()`, so the delivery is named here rather than found).
    @Test func theRefusalsFaultReachesAProxyDeliveringOnTheMainQueue() async {
        let source = RefusingSource()
        let proxy = HeadingProxy(source: source, delivery: .main)
        let faults = proxy.faults()
        proxy.enable()
        #expect(await Self.first(of: faults)?.reason == RefusingSource.reason)
        #expect(proxy.authorizationStatus == .denied)
    }

    /// The first element of a sequence, or `nil` after 10 s.
    static func first(of faults: AsyncStream<HeadingFault>) async -> HeadingFault? {
        await withTaskGroup(of: HeadingFault?.self) { group in
            group.addTask {
                for await fault in faults { return fault }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

/// A source refused as the docs show: its reason, then `denied`, from `requestAuthorization()`.
private final class RefusingSource: HeadingSource, @unchecked Sendable {
    // @unchecked: `delegate` is set once by the proxy before any report, then only read.
    static let reason = "cannot read /dev/ttyUSB0: Permission denied (is this user in the dialout group?)"
    let name = "serial:///dev/ttyUSB0"
    weak var delegate: (any HeadingSourceDelegate)?
    func requestAuthorization() {
        delegate?.headingSource(self, didFailWith: HeadingFault(code: .permissionDenied, source: name, reason: Self.reason))
        delegate?.headingSource(self, didChangeAuthorization: .denied)
    }
    func start() {}
    func stop() {}
}
