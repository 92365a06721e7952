// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Clocks
import Foundation
import HeadingKit
import HeadingKitTesting
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// The processor running for real: proxies, sources and the timer, on an injected clock.
struct HeadingProcessorTests {
    /// Subscribes a recorder to the processor's events.
    static func record(_ processor: HeadingProcessor) -> (EventRecorder, AnyCancellable) {
        let recorder = EventRecorder()
        let cancellable = processor.publisher.sink { recorder.record($0) }
        return (recorder, cancellable)
    }

    @Test func aSilentSourceIsStaleAfterTheConfiguredTimeOnTheInjectedClockAndRecoversAfter() async {
        let clock = TestClock()
        let source = ScriptedHeadingSource(name: "compass")
        let proxy = HeadingProxy(source: source)
        let processor = HeadingProcessor(
            inputs: [(proxy, .init())], configuration: .init(staleAfter: .seconds(2), magneticModel: nil), clock: clock
        )
        let (recorder, cancellable) = Self.record(processor)
        defer { cancellable.cancel() }
        processor.start()
        proxy.enable()
        source.send(.heading(Heading(trueHeading: 10, magneticHeading: nil, timestamp: Date(), source: "compass")))
        #expect(recorder.headings.map(\.trueHeading) == [10])
        await clock.advance(by: .milliseconds(1900))
        // Nothing is due before 2 s: give the timer every chance to fire early, then check it did not.
        for _ in 0..<50 { await Task.yield() }
        #expect(recorder.events.compactMap(\.fault).isEmpty)
        await clock.advance(by: .milliseconds(200))
        #expect(await recorder.wait { $0.contains { $0.fault?.code == .stale } })
        #expect(recorder.events.compactMap(\.fault).map(\.code) == [.stale])
        source.send(.heading(Heading(trueHeading: 12, magneticHeading: nil, timestamp: Date(), source: "compass")))
        #expect(recorder.events.suffix(2).map(\.notice?.code) == [.recovered, nil])
        #expect(recorder.headings.map(\.trueHeading) == [10, 12])
        processor.stop()
        proxy.disable()
    }

    @Test func twoSimulatedSourcesFailOverDuringADropoutAndFailBackAfterTheHoldTime() async {
        let clock = TestClock()
        let epoch = Date(timeIntervalSince1970: 1_782_864_000)
        // The primary drops out from 7 s to 10 s (a deviceLost fault); the backup never does.
        let primary = SimulatedHeadingSource(
            configuration: .init(seed: 1, rate: 10, dropoutInterval: 10, dropoutDuration: 3, epoch: epoch, sourceName: "primary"),
            clock: clock
        )
        let backup = SimulatedHeadingSource(
            configuration: .init(seed: 2, rate: 10, dropoutInterval: nil, epoch: epoch, sourceName: "backup"), clock: clock
        )
        let proxies = [HeadingProxy(source: primary), HeadingProxy(source: backup)]
        let processor = HeadingProcessor(
            inputs: proxies.map { ($0, HeadingProcessor.Installation()) },
            configuration: .init(staleAfter: .seconds(2), failBackHold: .seconds(2), disagreementThreshold: nil),
            clock: clock
        )
        let (recorder, cancellable) = Self.record(processor)
        defer { cancellable.cancel() }
        // The backup ticks once a tenth without fail: counting its headings paces the test.
        let backupTicks = EventRecorder()
        let backupCounter = proxies[1].publisher.sink { backupTicks.record($0) }
        defer { backupCounter.cancel() }
        processor.start()
        for proxy in proxies { proxy.enable() }
        // Step a tenth at a time (between ticks), each step's headings handled before the next.
        for step in 0..<140 {
            await clock.advance(by: step == 0 ? .milliseconds(50) : .milliseconds(100))
            let ticks = step + 1
            #expect(await backupTicks.wait { $0.compactMap(\.heading).count >= ticks })
        }
        #expect(await recorder.wait { events in events.filter { $0.notice?.code == .sourceChanged }.count >= 2 })
        let notices = recorder.events.compactMap(\.notice)
        #expect(notices.map(\.code) == [.sourceChanged, .recovered, .sourceChanged], "\(notices)")
        #expect(notices.first?.previousSource == "primary" && notices.first?.source == "backup")
        #expect(notices.last?.source == "primary")
        #expect(notices.last?.reason.contains("fail-back") == true)
        // Headings came from the primary, then the backup through the dropout and the hold, then the primary.
        var runs: [String] = []
        for heading in recorder.headings where runs.last != heading.source { runs.append(heading.source) }
        #expect(runs == ["primary", "backup", "primary"])
        // The backup delivered for the 3 s dropout plus the 2 s hold: about 50 headings.
        let fromBackup = recorder.headings.filter { $0.source == "backup" }.count
        #expect((45...55).contains(fromBackup), "\(fromBackup) headings from the backup")
        #expect(recorder.events.compactMap(\.fault).map(\.code) == [.deviceLost])
        processor.stop()
        for proxy in proxies { proxy.disable() }
    }

    @Test func theBridgePostsTheProcessorsEventsWithTheProcessorAsObject() async {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource(name: "compass")
        let proxy = HeadingProxy(source: source)
        let processor = HeadingProcessor(inputs: [(proxy, .init())], configuration: .init(magneticModel: nil), clock: TestClock())
        let bridge = HeadingNotificationBridge(processor: processor, center: center)
        defer { bridge.cancel() }
        let recorder = EventRecorder()
        let observer = center.addHeadingEventObserver(from: processor) { recorder.record($0) }
        defer { center.removeObserver(observer) }
        processor.start()
        proxy.enable()
        source.send(.heading(Heading(trueHeading: 10, magneticHeading: nil, timestamp: Date(), source: "compass")))
        source.send(.fault(HeadingFault(code: .deviceLost, source: "compass", reason: "cable")))
        source.send(.heading(Heading(trueHeading: 11, magneticHeading: nil, timestamp: Date(), source: "compass")))
        let events = recorder.events.filter { if case .authorizationChanged = $0 { false } else { true } }
        #expect(events.map(\.heading?.trueHeading) == [10, nil, nil, 11])
        #expect(events.map(\.fault?.code) == [nil, .deviceLost, nil, nil])
        #expect(events[2].notice?.code == .recovered)
        processor.stop()
        proxy.disable()
    }

    /// The processor's async sequences, made before it starts: headings and faults in order,
    /// finished when the processor goes away.
    @Test func theProcessorsAsyncSequencesCarryWhatItDelivers() async {
        let source = ScriptedHeadingSource(name: "compass")
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        var processor: HeadingProcessor? = HeadingProcessor(
            inputs: [(proxy, .init())], configuration: .init(magneticModel: nil), delivery: .immediate, clock: TestClock()
        )
        let headings = processor!.headings()
        let faults = processor!.faults()
        let events = processor!.events()
        processor!.start()
        proxy.enable()
        source.send(.heading(Heading(trueHeading: 10, magneticHeading: nil, timestamp: Date(), source: "compass")))
        source.send(.fault(HeadingFault(code: .malformedInput, source: "compass", reason: "a bad line")))
        source.send(.heading(Heading(trueHeading: 11, magneticHeading: nil, timestamp: Date(), source: "compass")))
        var seen: [Double?] = []
        for await heading in headings {
            seen.append(heading.trueHeading)
            if seen.count == 2 { break }
        }
        #expect(seen == [10, 11])
        var faultIterator = faults.makeAsyncIterator()
        #expect(await faultIterator.next()?.reason == "a bad line")
        processor?.stop()
        processor = nil
        var count = 0
        for await _ in events { count += 1 }  // ends: the processor is gone
        #expect(count >= 3)
    }
}
