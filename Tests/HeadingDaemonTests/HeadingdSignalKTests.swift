// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The Signal K output, with a client no one here wrote: Tests/Fixtures/signalk-client.py on
/// Debian's python3-websocket and python3-requests, which validates every message against the
/// published Signal K schemas (python3-jsonschema); and with hostile clients.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdSignalKTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// headingd with the Signal K output on a port of the test's own (the simulation unless `extra` says).
    private func start(_ extra: [String], environment: [String: String?] = [:]) async throws -> (DaemonProcess, UInt16) {
        let port = GPSFake.freePort()
        let daemon = DaemonProcess(
            arguments: ["--format", "json", "--signalk", "--signalk-listen", "127.0.0.1:\(port)"] + extra,
            environment: ["STATE_DIRECTORY": nil].merging(environment) { $1 }
        )
        try daemon.start()
        _ = try await LineClient.connect(port: port)  // listening
        return (daemon, port)
    }

    private func stop(_ daemon: DaemonProcess) async {
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors.suffix(2000))")
    }

    /// Runs a scenario of the Python client and returns the JSON object it printed last.
    private func client(_ scenario: String, port: UInt16, seconds: Double = 5) async throws -> [String: Any] {
        // The run is waited for on a thread of its own, not on the cooperative pool.
        let (status, text, problems) = try await offCooperativePool { try Self.runClient(scenario, port: port, seconds: seconds) }
        #expect(status == 0, "signalk-client.py \(scenario): \(problems)")
        let last = text.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "printed: \(text) \(problems)")
    }

    static func runClient(_ scenario: String, port: UInt16, seconds: Double) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")  // Debian's, with its python3-websocket
        process.arguments = [Self.fixtures.appendingPathComponent("signalk-client.py").path, scenario, String(port), String(seconds)]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, problems)
    }

    @Test func discoveryTheModelAndTheStreamAreValidSignalK() async throws {
        let (daemon, port) = try await start(["--rate", "10"])
        let seen = try await client("schema", port: port, seconds: 3)
        await stop(daemon)
        let hello = try #require(seen["hello"] as? [String: Any])
        #expect(hello["self"] as? String == seen["self"] as? String, "the hello's vessel is the model's")
        let endpoints = (seen["discovery"] as? [String: Any])?["endpoints"] as? [String: [String: Any]]
        #expect(endpoints?["v1"]?["signalk-ws"] as? String == "ws://127.0.0.1:\(port)/signalk/v1/stream")
        #expect((seen["deltas"] as? Int ?? 0) >= 20, "\(seen["deltas"] ?? "none") deltas in 3 s at 10 Hz")
        #expect(seen["firstHasMeta"] as? Bool == true)
        #expect(seen["metaDeltas"] as? Int == 1, "meta once per client")
        #expect(seen["leafStatus"] as? Int == 200)
        #expect((seen["leaf"] as? [String: Any])?["$source"] as? String == "headingd.simulation")
        #expect(seen["missingStatus"] as? Int == 404)
        #expect((seen["missingBody"] as? [String: Any])?["statusCode"] as? Int == 404)
        #expect(seen["putStatus"] as? Int == 405)
        #expect((seen["paths"] as? [String])?.contains("navigation.headingTrue") == true)
    }

    /// A replayed gpsd JSON log (looped): every headingTrue the stream carries is one of the log's
    /// ATT headings in radians, within 1e-9, and all four are seen.
    @Test func aReplayedLogsDegreesArriveAsTheSameRadians() async throws {
        let log = Self.fixtures.appendingPathComponent("hemi.gpspipe.jsonl").path
        let (daemon, port) = try await start(["--source", "replay:\(log)", "--loop", "--speed", "100"])
        let seen = try await client("faults", port: port, seconds: 5)
        await stop(daemon)
        let degrees = [274.07, 274.04, 274.12, 274.11]
        let radians = (seen["seen"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? Double }
        #expect(radians.count >= 4)
        for value in radians {
            #expect(degrees.contains { abs($0 * .pi / 180 - value) <= 1e-9 }, "\(value) rad is none of the log's headings")
        }
        for heading in degrees {
            #expect(radians.contains { abs(heading * .pi / 180 - $0) <= 1e-9 }, "\(heading)° never arrived")
        }
    }

    @Test func eachClientHasItsOwnRateAndUnsubscribeStops() async throws {
        let (daemon, port) = try await start(["--rate", "10", "--dropout-interval", "0"])
        let seen = try await client("rates", port: port, seconds: 5)
        await stop(daemon)
        // minPeriod 1000 ms on a 10 Hz source: about one a second (the first at once); the other client gets them all.
        #expect((4...7).contains(seen["a"] as? Int ?? 0), "client a: \(seen)")
        #expect((seen["b"] as? Int ?? 0) >= 35, "client b: \(seen)")
        #expect(seen["aPaths"] as? [String] == ["navigation.headingTrue"])
        #expect(seen["afterUnsubscribe"] as? Int == 0)
    }

    /// A dropout the client sees begin: its alarm, then the heading's values go to `null`, then
    /// `normal` and headings again. No heading value arrives between any alarm and the `normal`
    /// that clears it — also for an alarm already raised when the client connected (mid-dropout,
    /// when the client starts slowly), which comes first and without a `null` of its own, since
    /// that was sent before the client came.
    @Test func aFaultIsAnAlarmWithNullValuesAndRecoveryIsNormal() async throws {
        let (daemon, port) = try await start(["--rate", "10", "--dropout-interval", "2", "--dropout-duration", "1"])
        let seen = try await client("faults", port: port, seconds: 5)
        await stop(daemon)
        let events = seen["seen"] as? [[String: Any]] ?? []
        let isAlarm = { (event: [String: Any]) in event["state"] as? String == "alarm" }
        let isNormal = { (event: [String: Any]) in event["state"] as? String == "normal" }
        let isValue = { (event: [String: Any]) in event["value"] is Double }
        // The first alarm raised while the client listened: one after a heading it was sent.
        let alarm = try #require(
            events.indices.first { isAlarm(events[$0]) && events[..<$0].contains(where: isValue) },
            "\(events.prefix(40))"
        )
        #expect(events[alarm]["path"] as? String == "notifications.navigation.heading.deviceLost")
        #expect(events[alarm]["method"] as? [String] == ["visual", "sound"])
        #expect((events[alarm]["message"] as? String)?.hasPrefix("simulation: ") == true)
        let null = try #require(events[alarm...].firstIndex { $0["path"] as? String == "navigation.headingTrue" && $0["value"] is NSNull })
        let normal = try #require(events[null...].firstIndex(where: isNormal), "recovered")
        #expect(events[normal...].contains(where: isValue), "headings again after recovery")
        for raised in events.indices where isAlarm(events[raised]) {
            let cleared = events[raised...].firstIndex(where: isNormal) ?? events.endIndex
            #expect(!events[raised..<cleared].contains(where: isValue), "no stale heading re-sent as current: \(events[raised..<cleared].prefix(5))")
        }
    }

    @Test func hostileClientsNeitherCrashItNorDisturbOthers() async throws {
        let (daemon, port) = try await start(["--rate", "10"])
        let seen = try await client("hostile", port: port)
        #expect(seen["garbageReplies"] as? [Int] == [400, 400, 400, 400, 400])
        #expect(seen["subscribeRefusals"] as? Int == 1000 - 64, "the 64-subscription limit")
        #expect(seen["aliveAfterSubscribeFlood"] as? Bool == true)
        #expect(seen["fragmentedClose"] as? Int == 1009, "a message over 16 KiB closes with 1009")
        #expect(seen["bigFrameClose"] != nil, "a 10 MB frame ends its connection")
        #expect(seen["readerServedOn"] as? Bool == true)
        #expect(daemon.exitedAt == nil, "headingd is still up")
        await stop(daemon)
    }

    /// Issue 27: a slowloris (300 connections trickling a request head, a header line a second) and
    /// an idle flood (100 connections that never send a byte), each reopened as the listener
    /// closes them, for 12 s, with the default limits: a well-behaved client's discovery request is
    /// served within a second every time, a stream client keeps its rate, the hostile connections
    /// are closed (after 5 s without a whole head), descriptors stay bounded, and headings on
    /// stdout keep their rate.
    @Test func slowAndIdleClientsAreClosedWhileOthersAreServed() async throws {
        let (daemon, port) = try await start(["--rate", "10"])
        let linesBefore = daemon.outputLines.count
        let pid = daemon.processIdentifier
        // headingd's own descriptors before any client (stdio, epoll, eventfds, signal pipes, listeners).
        let baseline = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        let descriptors = Mutex(0)
        let sampler = Task.detached {
            while !Task.isCancelled {
                let count = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
                descriptors.withLock { $0 = max($0, count) }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        let started = ContinuousClock.now
        let seen = try await client("slowloris", port: port, seconds: 12)
        let elapsed = ContinuousClock.now - started
        sampler.cancel()
        let linesDuring = daemon.outputLines.count - linesBefore
        print("slowloris and idle flood: \(seen); most descriptors \(descriptors.withLock { $0 }); \(linesDuring) headings in \(elapsed)")
        #expect(seen["goodFailures"] as? Int == 0, "\(seen)")
        #expect((seen["goodRequests"] as? Int ?? 0) >= 20, "\(seen)")
        // Time is the claim here, so a bound stays, set where noise cannot reach it and a blocked
        // server cannot pass it: a request held behind the hostile connections waits until they are
        // closed (5 s without a whole head); two cores shared by four test processes have delayed
        // a good request by up to 0.6 s.
        #expect((seen["slowestGood"] as? Double ?? 99) < 3.0, "a discovery request waited: \(seen)")
        #expect((seen["closedByServer"] as? Int ?? 0) >= 400, "the hostile connections must be closed: \(seen)")
        #expect((seen["streamDeltas"] as? Int ?? 0) >= 60, "the stream client kept its rate (10 Hz): \(seen)")
        // The connections are bounded (128 by default), and so are headingd's descriptors: its own,
        // the 128, the stream client and the discovery request, and those accepted in the moment
        // before the guard's closes of the oldest have run on their event loops (17 at most seen
        // in fresh-clone runs, 36 in a full local run on a loaded 2-core machine; without the cap
        // the ~2,000 connections the test opens would all be held).
        #expect(descriptors.withLock { $0 } <= baseline + 128 + 96, "descriptors: \(descriptors.withLock { $0 }), \(baseline) before")
        let seconds = Double(elapsed.components.seconds)
        // Half the rate: a daemon whose loop the flood starves falls far below it; a loaded
        // machine's late ticks do not (the simulation's schedule catches up).
        #expect(Double(linesDuring) >= seconds * 10 * 0.5, "\(linesDuring) headings in \(elapsed) at 10 Hz")
        #expect(daemon.exitedAt == nil, "headingd is still up")
        await stop(daemon)
    }

    /// The raw upgrade request a WebSocket client sends first.
    private func upgrade(_ client: LineClient) async -> String? {
        client.send(
            "GET /signalk/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        return await client.readLine()
    }

    /// Upgrades `client` to the stream, expecting 101 and saying what came instead.
    private func expectUpgrade(_ client: LineClient, sourceLocation: SourceLocation = #_sourceLocation) async {
        let answer = await upgrade(client)
        #expect(answer?.hasPrefix("HTTP/1.1 101") == true, "answered: \(answer ?? "nothing")", sourceLocation: sourceLocation)
    }

    /// headingd at 500 Hz with a stream client that has a small receive buffer and never reads.
    private func startWithAStalledClient() async throws -> (DaemonProcess, UInt16, LineClient) {
        let (daemon, port) = try await start(["--rate", "500", "--dropout-interval", "0"])
        let stalled = try await LineClient.connect(port: port, receiveBuffer: 2048)
        await expectUpgrade(stalled)
        return (daemon, port, stalled)
    }

    @Test func theClientBeyondTheLimitIsClosedWith1013AndOneLogLine() async throws {
        let (daemon, port) = try await start(["--signalk-max-clients", "2"])
        let first = try await LineClient.connect(port: port)
        let second = try await LineClient.connect(port: port)
        await expectUpgrade(first)
        await expectUpgrade(second)
        let third = try await LineClient.connect(port: port)
        await expectUpgrade(third)
        #expect(await third.waitForClose(timeout: .seconds(10)))
        // The close frame: 0x88, its length, then the code 1013 (try again later), big-endian.
        let frame = third.unreadBytes.drop { $0 != 0x88 }
        #expect(Array(frame.dropFirst(2).prefix(2)) == [0x03, 0xF5], "close frame \(Array(frame.prefix(8)))")
        #expect(await daemon.wait(untilErrorsContain: "refused: 2 clients already connected"))
        #expect(daemon.errors.components(separatedBy: "refused:").count == 2, "one line")
        await stop(daemon)
    }

    @Test func aClientThatNeverReadsIsDroppedWhileAnotherIsServed() async throws {
        let (daemon, port, stalled) = try await startWithAStalledClient()
        let before = try #require(daemon.residentKiB)
        var peak = before
        let deadline = ContinuousClock.now + .seconds(60)
        while !daemon.errors.contains("read nothing for 5.0 seconds"), ContinuousClock.now < deadline {
            peak = max(peak, daemon.residentKiB ?? 0)
            try await Task.sleep(for: .milliseconds(100))  // sampling the resident set while it waits
        }
        #expect(daemon.errors.contains("read nothing for 5.0 seconds"))
        #expect(await stalled.drainUntilClosed(timeout: .seconds(30)))
        // Its backlog is bounded by construction (64 events, NIO's watermark, a 32 KiB socket buffer).
        print("RSS while a Signal K client stalled: \(before) KiB before, \(peak) KiB at most")
        #expect(peak - before < 16 * 1024, "RSS grew from \(before) KiB to \(peak) KiB")
        let seen = try await client("schema", port: port, seconds: 1)
        #expect((seen["deltas"] as? Int ?? 0) > 50, "the others are served: \(seen["deltas"] ?? "none")")
        await stop(daemon)
    }

    /// A client that reads nothing holds a write; SIGTERM still ends headingd at once, with 0.
    @Test func sigtermEndsHeadingdPromptlyWhileAClientStalls() async throws {
        let (daemon, _, stalled) = try await startWithAStalledClient()
        // Its buffers fill within a second at 500 Hz; nothing to await from outside.
        try await Task.sleep(for: .seconds(2))
        let asked = ContinuousClock.now
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        let took = try #require(daemon.exitedAt) - asked
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors.suffix(500))")
        // Not cut short by its own 1.5 s stop deadline: an ordering fact, said in the log when it happens.
        #expect(!daemon.errors.contains("stopping at once"), "\(daemon.errors.suffix(500))")
        // And well within the unit's TimeoutStopSec (10 s), the time that matters: not the 1.5 s
        // deadline itself, which a loaded 2-core machine's scheduling alone can pass.
        #expect(took < .seconds(5), "took \(took)")
        withExtendedLifetime(stalled) {}  // held to here: an optimised build may end a value at its last use
    }

    @Test func anAddressInUseEndsHeadingdWith69NamingIt() async throws {
        let (first, port) = try await start([])
        let second = DaemonProcess(arguments: ["--signalk", "--signalk-listen", "127.0.0.1:\(port)"])
        try second.start()
        #expect(await second.waitForExit(timeout: .seconds(20)))
        #expect(second.terminationStatus == 69)
        #expect(second.errors.contains("Signal K output: cannot listen on 127.0.0.1:\(port): Address already in use"), "\(second.errors)")
        #expect(second.output.isEmpty, "no heading before the outputs listen")
        await stop(first)
    }

    @Test func theVesselIdentityIsKeptInTheStateDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var vessels: [String] = []
        for _ in 0..<2 {
            let (daemon, port) = try await start([], environment: ["STATE_DIRECTORY": directory.path])
            let seen = try await client("schema", port: port, seconds: 0.5)
            vessels.append(seen["self"] as? String ?? "")
            await stop(daemon)
        }
        let kept = try String(contentsOf: directory.appendingPathComponent("signalk-self"), encoding: .utf8)
        #expect(vessels[0] == vessels[1], "the same vessel across restarts")
        #expect(vessels[0] == "vessels." + kept.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
