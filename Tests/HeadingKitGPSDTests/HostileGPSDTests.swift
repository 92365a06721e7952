// headingd — HeadingKitGPSD tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD
import HeadingKitTesting
import Testing

/// The live gpsd source against a gpsd that misbehaves on purpose: it keeps delivering what is
/// good, reports what is not, reconnects, and stops within its bound whatever the peer does.
// Two minutes: the limit counts the wait for a process slot, which a full suite on two cores makes long.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HostileGPSDTests {
    /// A source on the hostile server, with quick timeouts so the tests are short.
    private func source(for server: HostileGPSD) -> (GPSDHeadingSource, DelegateRecorder) {
        let source = GPSDHeadingSource(
            configuration: .init(
                endpoint: GPSDEndpoint(host: "127.0.0.1", port: server.port), readTimeout: .milliseconds(100),
                backoff: ReconnectBackoff(initial: 0.1, maximum: 0.5), answerTimeout: .seconds(1)
            )
        )
        let reports = DelegateRecorder()
        source.delegate = reports
        return (source, reports)
    }

    /// Stops the source and checks it stopped within one read timeout and some slack.
    ///
    /// The reader's end is timed on a thread of its own, where it happens: a task awaiting
    /// `waitUntilStopped()` resumes only when a busy cooperative pool lets it (seconds, with the
    /// suite's other tests running).
    private func stopWithinBound(_ source: GPSDHeadingSource) async {
        let asked = ContinuousClock.now
        source.stop()
        let stoppedAt: ContinuousClock.Instant = await withCheckedContinuation { continuation in
            Thread {
                // The reader sets `idle` as it ends; no event reaches a plain thread, so it polls (bounded: 10 s).
                let deadline = ContinuousClock.now + .seconds(10)
                while source.connectionState != .idle, ContinuousClock.now < deadline { usleep(1000) }
                continuation.resume(returning: ContinuousClock.now)
            }.start()
        }
        await source.waitUntilStopped()
        let took = stoppedAt - asked
        #expect(took < .seconds(2), "stopped after \(took)")
    }

    private static func headings(_ events: [HeadingEvent]) -> [Double?] { events.compactMap(\.heading).map(\.trueHeading) }

    @Test(arguments: [HostileGPSD.Behaviour.garbage, .oversizedLines, .flood, .absurdDevices])
    func goodHeadingsStillArriveBetweenTheBadLines(behaviour: HostileGPSD.Behaviour) async throws {
        let server = try HostileGPSD(behaviour)
        defer { server.stop() }
        let (source, reports) = source(for: server)
        source.start()
        #expect(await reports.wait(timeout: .seconds(15)) { Self.headings($0).count >= 3 })
        #expect(Self.headings(reports.events).allSatisfy { $0 == 123.4 })
        if behaviour == .oversizedLines {
            #expect(reports.events.contains { $0.fault?.reason.contains("longer than") == true }, "\(reports.events.prefix(3))")
        }
        if behaviour == .garbage {
            #expect(reports.events.contains { $0.fault?.code == .malformedInput })
        }
        await stopWithinBound(source)
    }

    @Test(arguments: [HostileGPSD.Behaviour.drip, .silence])
    func aGpsdThatNeverAnswersIsAFaultAndAReconnect(behaviour: HostileGPSD.Behaviour) async throws {
        let server = try HostileGPSD(behaviour)
        defer { server.stop() }
        let (source, reports) = source(for: server)
        source.start()
        #expect(
            await reports.wait(timeout: .seconds(10)) { events in
                events.contains { $0.fault?.code == .sourceUnavailable && $0.fault?.reason.contains("did not answer the watch request") == true }
            }
        )
        #expect(await Recorder<Int>.poll(timeout: .seconds(10)) { server.connectionCount >= 2 })
        #expect(Self.headings(reports.events).isEmpty)
        await stopWithinBound(source)
    }

    @Test func aCompasssCalibrationAlarmIsItsCalibrationStateUntilHeadingsComeWithoutIt() async throws {
        let server = try HostileGPSD(.calibrationAlarm)
        defer { server.stop() }
        let (source, reports) = source(for: server)
        #expect(source.calibrationStatus == nil, "nothing said yet")
        // What the status is when each alarm reaches the delegate (set before the fault is delivered).
        final class StatusAtAlarm: HeadingSourceDelegate, @unchecked Sendable {  // `seen` guarded by `lock`
            let lock = NSLock()
            var seen: [CalibrationStatus?] = []
            weak var source: GPSDHeadingSource?
            let next: any HeadingSourceDelegate
            init(next: any HeadingSourceDelegate) { self.next = next }
            func headingSource(_ source: any HeadingSource, didUpdate heading: Heading) { next.headingSource(source, didUpdate: heading) }
            func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault) {
                if fault.code == .calibrationNeeded { lock.withLock { seen.append(self.source?.calibrationStatus) } }
                next.headingSource(source, didFailWith: fault)
            }
            func headingSource(_ source: any HeadingSource, didChangeAuthorization status: HeadingAuthorizationStatus) {
                next.headingSource(source, didChangeAuthorization: status)
            }
        }
        let watcher = StatusAtAlarm(next: reports)
        watcher.source = source
        source.delegate = watcher
        source.start()
        #expect(await reports.wait(timeout: .seconds(15)) { Self.headings($0).count >= 3 })
        let seen = watcher.lock.withLock { watcher.seen }
        #expect(!seen.isEmpty && seen.allSatisfy { $0?.state == CalibrationStatus.State.none && $0?.reason?.contains("gpsd mag_st C") == true }, "\(seen)")
        #expect(source.calibrationStatus == nil, "the alarm is over: \(String(describing: source.calibrationStatus))")
        await stopWithinBound(source)
    }

    @Test func aResetIsAFaultAndTheSourceReconnects() async throws {
        let server = try HostileGPSD(.reset)
        defer { server.stop() }
        let (source, reports) = source(for: server)
        source.start()
        #expect(
            await reports.wait(timeout: .seconds(10)) { events in
                events.filter { $0.fault?.code == .sourceUnavailable }.count >= 2 && Self.headings(events).count >= 10
            }
        )
        #expect(server.connectionCount >= 2)
        await stopWithinBound(source)
    }
}

extension Recorder {
    /// Polls `condition` every 20 ms until it holds or `timeout` passes: for a counter on another
    /// thread that has no event to await.
    static func poll(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
