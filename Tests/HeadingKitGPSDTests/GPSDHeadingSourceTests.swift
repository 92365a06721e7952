// headingd — HeadingKitGPSD tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD
import HeadingKitTesting
import Testing

/// The live gpsd source against a real gpsd: gpsfake replays a log into a private gpsd on a port
/// of each test's own.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct GPSDHeadingSourceTests {
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    /// A source on `port`, with its reports and connection states recorded.
    struct Harness {
        let source: GPSDHeadingSource
        let reports = DelegateRecorder()
        let states = Recorder<GPSDHeadingSource.ConnectionState>()
        let statesTask: Task<Void, Never>

        init(port: UInt16, backoff: ReconnectBackoff = ReconnectBackoff(), delegate: Bool = true) {
            source = GPSDHeadingSource(
                // Silence is tested through the daemon (HeadingdGPSDTests): here a gpsfake slowed by a busy
                // machine must not make a stale fault of its start-up.
                configuration: .init(endpoint: GPSDEndpoint(host: "127.0.0.1", port: port), backoff: backoff, silenceTimeout: .seconds(60))
            )
            if delegate { source.delegate = reports }
            let stream = source.connectionStates()
            let states = states
            statesTask = Task { for await state in stream { states.record(state) } }
        }

        /// Waits until gpsd has acknowledged the watch `count` times in all.
        func waitUntilWatching(times count: Int = 1) async -> Bool {
            await states.wait(timeout: .seconds(20)) { $0.filter { $0 == .watching }.count >= count }
        }

        func finish() async {
            source.stop()
            await source.waitUntilStopped()
            statesTask.cancel()
        }
    }

    /// Replays `log` through gpsfake and gpsd into a fresh source, until gpsd reports the
    /// device gone at the end of the log; returns what the source reported.
    private func reportsOfLog(_ log: String) async throws -> DelegateRecorder {
        let fake = GPSFake(log: Self.fixture(log), port: GPSFake.freePort())
        try await fake.start()
        defer { fake.stop() }
        let harness = Harness(port: fake.port)
        harness.source.start()
        #expect(await harness.waitUntilWatching())
        fake.release()
        let ended = await harness.reports.wait { $0.contains { $0.fault?.code == .deviceLost } }
        #expect(ended, "gpsd never reported the end of \(log); got \(harness.reports.events)")
        await harness.finish()
        return harness.reports
    }

    /// Connection-state streams whose consumers are cancelled while the state changes: no lock of
    /// the source is held while a stream is given a state, so a stream's end (whose handler takes
    /// that lock) never waits on a yield that waits on it. With the state's lock held into the yield
    /// this deadlocked. Nothing here waits for a number of changes: under the suite's load the
    /// states come when they come (a first version waited for three each and ran out of time in CI).
    @Test func streamsCancelledWhileTheStateChangesNeitherDeadlockNorMissTheLast() async {
        // Nothing listens on the reserved port: the source connects, is refused and waits 10 ms, again and again.
        let source = GPSDHeadingSource(
            configuration: .init(endpoint: GPSDEndpoint(host: "127.0.0.1", port: GPSFake.freePort()), backoff: ReconnectBackoff(initial: 0.01, maximum: 0.01))
        )
        source.start()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask { for await _ in source.connectionStates() {} }
            }
            group.cancelAll()  // each stream ends by its task's cancellation, whenever that meets a delivery
        }
        let stream = source.connectionStates()
        source.stop()
        await source.waitUntilStopped()
        var last: GPSDHeadingSource.ConnectionState?
        var iterator = stream.makeAsyncIterator()
        while last != .idle, let state = await iterator.next() { last = state }
        #expect(last == .idle)
        var fresh = source.connectionStates().makeAsyncIterator()
        #expect(await fresh.next() == .idle)
    }

    @Test func hemiGivesExactlyItsFourHDTHeadings() async throws {
        let reports = try await reportsOfLog("gpsd-logs/hemi.log")
        #expect(reports.headings.map(\.trueHeading) == [274.07, 274.04, 274.12, 274.11])
        #expect(reports.headings.allSatisfy { $0.kind == .gnssCompass && $0.source.hasPrefix("gpsd://127.0.0.1:") })
        // The end of the log is the only fault: the 211 empty HDT are no heading, not errors.
        #expect(reports.faults.map(\.code) == [.deviceLost])
        #expect(reports.faults.first?.reason.contains("gpsd reports device /dev/") == true)
    }

    @Test func tntRawUnitsAreRejectedAsOutOfRangeNeverWrapped() async throws {
        let reports = try await reportsOfLog("gpsd-logs/tnt-revolution.log")
        #expect(reports.headings.isEmpty)
        let outOfRange = reports.faults.filter { $0.code == .outOfRange }
        // One per PTNTHTM (gpsd's ATT copy of each is a duplicate): the first whole, the other 49
        // summarised (a flood) before the device's end.
        #expect(outOfRange.map(\.occurrences) == [1, 49], "\(outOfRange)")
        #expect(outOfRange.allSatisfy { $0.reason.contains("outside 0–360°") })
        #expect(outOfRange.last?.reason.hasPrefix("49 more bad lines in") == true, "\(outOfRange)")
    }

    @Test func thsHeadingsArriveThroughGpsdsRawNMEA() async throws {
        // gpsd 3.22 drops THS: no ATT is made of it, so these come from HeadingKit's own parser.
        let reports = try await reportsOfLog("ths-compass.nmea")
        #expect(reports.headings.map(\.trueHeading) == [359.5, 0.3, 1.25, 10.0])
        #expect(reports.faults.map(\.code) == [.deviceLost])
    }

    @Test func courseOverGroundOnlyAboveTheMinimumSpeed() async throws {
        let reports = try await reportsOfLog("course-over-ground.nmea")
        #expect(reports.headings.map(\.trueHeading) == [47.0, 48.5, 359.9])
        #expect(reports.headings.allSatisfy { $0.kind == .courseOverGround })
        // RMC's 2.0° W variation: magnetic = true + 2.
        #expect(reports.headings.first?.magneticHeading == 49.0)
    }

    @Test func gpsdKilledAndRestartedTenTimesLeaksNothing() async throws {
        let port = GPSFake.freePort()
        let harness = Harness(port: port, delegate: false)
        let proxy = HeadingProxy(source: harness.source)
        let subscriber = DelegateRecorder()
        let events = proxy.events(bufferingPolicy: .unbounded)
        let subscription = Task { for await event in events { subscriber.record(event) } }
        // Faults timed where they happen: a block observer runs on the reader thread, while the
        // async subscriber above may wait for a busy cooperative pool (other tests block on it).
        let center = NotificationCenter()
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        defer { bridge.cancel() }
        let timedFaults = Recorder<ContinuousClock.Instant>()
        let observer = center.addHeadingEventObserver { event in
            if event.fault?.code == .sourceUnavailable { timedFaults.record(.now) }
        }
        defer { center.removeObserver(observer) }
        proxy.enable()
        // Other tests run in this process at the same time, so what is counted is this source's
        // own: its reader thread (named after the port) and its sockets to the port.
        let readerName = "gpsd:\(port)"
        var detections: [Duration] = []
        var reconnections: [Duration] = []
        var counts: [(threads: Int, sockets: Int)] = []
        for round in 1...10 {
            let fake = GPSFake(log: Self.fixture("gpsd-logs/rst39.log"), port: port)
            try await fake.start()
            let listening = ContinuousClock.now
            #expect(await harness.waitUntilWatching(times: round), "round \(round): never watching")
            reconnections.append(ContinuousClock.now - listening)
            let headingsBefore = subscriber.headings.count
            fake.release(40)
            #expect(await subscriber.wait { $0.compactMap(\.heading).count > headingsBefore }, "round \(round): no headings")
            counts.append((Self.threadNames().filter { $0 == readerName }.count, Self.sockets(toPort: port)))
            let faultsBefore = timedFaults.events.count
            let killed = try #require(fake.killGPSD(), "round \(round): no gpsd to kill")
            #expect(await timedFaults.wait(timeout: .seconds(5)) { $0.count > faultsBefore })
            if let seen = timedFaults.events.dropFirst(faultsBefore).first { detections.append(seen - killed) }
            fake.stop()
        }
        print(
            "gpsd restarts: loss seen after \(detections); watching again after \(reconnections); "
                + "(reader threads, sockets) while connected: \(counts); process threads \(Self.threadNames().count), descriptors \(Self.descriptorCount())"
        )
        #expect(counts.allSatisfy { $0 == (1, 1) }, "reader threads and sockets per round: \(counts)")
        // Promptness is the claim: the reader sees the socket close at once (a poll on it, not a
        // timeout), so a loss seen in under 3 s is prompt; a missed close would wait for the 5 s
        // above and fail there. (The bound was 1 s: too near a loaded machine's scheduling; the
        // figures are printed above.)
        #expect(detections.allSatisfy { $0 < .seconds(3) }, "loss detected after \(detections)")
        // Headings reached the same subscriber in every round, and nothing finished it.
        #expect(subscriber.headings.count >= 10)
        proxy.disable()
        await harness.finish()
        // disable() pauses the proxy's sequence; ending the iteration ends the subscription.
        subscription.cancel()
        await subscription.value
        // The reader thread ends just after it reports the end: give it a moment, bounded.
        let deadline = ContinuousClock.now + .seconds(2)
        while Self.threadNames().contains(readerName), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(!Self.threadNames().contains(readerName))
        #expect(Self.sockets(toPort: port) == 0)
    }

    @Test func noGpsdAtAllGivesFaultsAndRetriesNeverACrash() async throws {
        let harness = Harness(port: GPSFake.freePort(), backoff: ReconnectBackoff(initial: 0.02, maximum: 0.08))
        harness.source.requestAuthorization()
        harness.source.start()
        #expect(await harness.reports.wait { $0.compactMap(\.fault).count >= 5 })
        await harness.finish()
        let faults = harness.reports.faults
        #expect(faults.allSatisfy { $0.code == .sourceUnavailable })
        #expect(
            faults.allSatisfy { $0.reason.contains("Connection refused") && $0.reason.contains("retrying in") },
            "faults: \(faults.map(\.reason))"
        )
        // Refused is unavailable, not a denial; and with no connection yet, nothing is decided.
        #expect(harness.reports.events.compactMap { event -> HeadingAuthorizationStatus? in
            if case .authorizationChanged(let status) = event { return status }
            return nil
        } == [])
        #expect(harness.states.events.contains { if case .waitingToRetry = $0 { true } else { false } })
        #expect(harness.source.connectionState == .idle)
    }

    @Test func disableDuringAReconnectWaitReturnsPromptly() async throws {
        let harness = Harness(port: GPSFake.freePort(), backoff: ReconnectBackoff(initial: 30, maximum: 30, jitter: 0))
        let proxy = HeadingProxy(source: harness.source)
        proxy.enable()
        #expect(await harness.states.wait { $0.contains(.waitingToRetry(seconds: 30)) })
        let disabling = ContinuousClock.now
        proxy.disable()
        // The reader waits 30 s between attempts; stopping must not wait for that.
        let stopped = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await harness.source.waitUntilStopped(); return true }
            group.addTask { try? await Task.sleep(for: .seconds(5)); return false }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
        #expect(stopped)
        print("disable() during a 30 s reconnect wait: reader ended after \(ContinuousClock.now - disabling)")
        await harness.finish()
    }

    /// How many of this process's descriptors are TCP sockets connected to 127.0.0.1:`port`.
    private static func sockets(toPort port: UInt16) -> Int {
        let hex = String(port, radix: 16, uppercase: true)
        let suffix = ":" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        var inodes = Set<String>()
        for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
            // Read to the end: /proc reports a size of 0, and a table of many sockets spans pages.
            guard let handle = FileHandle(forReadingAtPath: table), let data = try? handle.readToEnd() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 9, fields[2].hasSuffix(suffix) { inodes.insert(String(fields[9])) }
            }
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                target.hasPrefix("socket:[")
            else { return false }
            return inodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
        }.count
    }

    private static func threadNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap {
            (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    private static func descriptorCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }
}
