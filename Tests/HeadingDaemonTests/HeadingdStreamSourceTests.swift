// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import HeadingPorts
import Synchronization
import Testing

@testable import HeadingDaemon

#if canImport(Glibc)
import Glibc
#endif

/// NMEA 0183 straight from the instruments, the real binary with real peers: a serial line (a
/// socat pty pair), a TCP feed (a second headingd's own output, and a server that stalls and cuts
/// sentences), UDP datagrams from two senders, and one multiplexed feed carrying two instruments.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdStreamSourceTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Each JSON heading line as its object.
    static func headings(_ daemon: DaemonProcess) -> [[String: Any]] {
        daemon.outputLines.compactMap { line in try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] }
    }

    static func trueHeadings(_ daemon: DaemonProcess) -> [Double] {
        headings(daemon).compactMap { $0["trueHeading"] as? Double }
    }

    /// Waits until headingd has printed at least `count` headings.
    static func waitForHeadings(_ daemon: DaemonProcess, _ count: Int, timeout: Duration = .seconds(20)) async -> Bool {
        await daemon.wait(timeout: timeout) { output, _ in output.utf8.lazy.filter { $0 == 0x0A }.count >= count }
    }

    static func stop(_ daemon: DaemonProcess) async {
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors)")
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    // MARK: Serial

    @Test func aSerialLineCarriesGpsdsRecordingAndIsReopenedWhenItComesBack() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ends = (directory.appendingPathComponent("compass").path, directory.appendingPathComponent("headingd").path)
        var pair = try PTYPair(ends)
        let url = "serial://\(ends.1)?baud=4800"
        let daemon = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "30"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "\(url): open"), "stderr: \(daemon.errors)")
        // gpsd's own regression log of a Hemisphere GNSS compass, comments and all.
        let hemi = try String(contentsOf: Self.fixtures.appendingPathComponent("gpsd-logs/hemi.log"), encoding: .utf8)
        let compass = ends.0
        #expect(await offCooperativePool { PTYPair.write(hemi, to: compass) })
        #expect(await Self.waitForHeadings(daemon, 4), "stderr: \(daemon.errors)")
        #expect(Self.trueHeadings(daemon) == [274.07, 274.04, 274.12, 274.11])
        // The USB adapter pulled: deviceLost, retried with backoff; back: headings again.
        pair.end()
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "\(url): deviceLost: "), "stderr: \(daemon.errors)")
        pair = try PTYPair(ends)
        #expect(
            await daemon.wait(timeout: .seconds(15)) { $0.components(separatedBy: "\(url): open").count == 3 }, "stderr: \(daemon.errors)"
        )
        let gyro = Sentence.make("HEHDT,77.0,T")
        #expect(await offCooperativePool { PTYPair.write(gyro, to: compass) })
        #expect(await Self.waitForHeadings(daemon, 5), "stderr: \(daemon.errors)")
        #expect(Self.trueHeadings(daemon).last == 77)
        await Self.stop(daemon)
        pair.end()
    }

    @Test func aUBloxMovingBaseHeadingIsReadStraightFromTheReceiversPort() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ends = (directory.appendingPathComponent("f9p").path, directory.appendingPathComponent("headingd").path)
        let pair = try PTYPair(ends)
        defer { pair.end() }
        let url = "serial://\(ends.1)?baud=115200&format=ubx"
        let daemon = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "30"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "\(url): open"), "stderr: \(daemon.errors)")
        // UBX and NMEA interleaved, as the receiver's USB port sends them; one frame without a fixed solution.
        let fixed = UBXFrameBuilder.relativePosition(headingE5: 4_512_345, accuracyE5: 31_000, flags: UBXFrameBuilder.validHeadingFlags)
        let floating = UBXFrameBuilder.relativePosition(headingE5: 9_000_000, accuracyE5: 31_000, flags: UBXFrameBuilder.validHeadingFlags & ~(3 << 3) | 1 << 3)
        let bytes = Array(Sentence.make("GNGGA,120000.00,5430.0,N,01010.0,E,4,12,0.6,10.0,M,40.0,M,,").utf8) + fixed + floating
            + Array(Sentence.make("GNRMC,120000.00,A,5430.0,N,01010.0,E,0.0,,241126,,,R").utf8) + fixed
        let compass = ends.0
        #expect(await offCooperativePool { PTYPair.write(bytes: bytes, to: compass) })
        #expect(await Self.waitForHeadings(daemon, 2), "stderr: \(daemon.errors)")
        await Self.stop(daemon)
        let headings = Self.headings(daemon)
        #expect(headings.map { $0["trueHeading"] as? Double } == [45.12345, 45.12345])
        #expect(headings.map { $0["accuracy"] as? Double } == [0.31, 0.31])
        #expect(headings.allSatisfy { $0["kind"] as? String == "gnssCompass" })
    }

    @Test func aSerialDeviceThisUserMayNotReadIsDeniedWithItsReason() async throws {
        try #require(getuid() == 0, "needs root to run headingd as another user")
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let ends = (directory.appendingPathComponent("compass").path, directory.appendingPathComponent("headingd").path)
        let pair = try PTYPair(ends)
        defer { pair.end() }
        // The pty is root's, mode 0600: nobody (not in dialout) may not open it.
        chmod(ends.1, 0o600)
        let daemon = DaemonProcess(
            arguments: ["--source", "serial://\(ends.1)", "--format", "json"],
            launcher: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        )
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "authorization: denied"), "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains("permissionDenied: cannot read \(ends.1): Permission denied"), "stderr: \(daemon.errors)")
        await Self.stop(daemon)
    }

    // MARK: TCP

    @Test func aSecondHeadingdsNMEAOutputIsATCPFeed() async throws {
        let port = GPSFake.freePort()
        let feed = DaemonProcess(arguments: [
            "--rate", "10", "--format", "json", "--nmea-tcp", "127.0.0.1:\(port)", "--nmea-sentences", "HDT", "--nmea-rate", "0",
        ])
        try feed.start()
        _ = try await LineClient.connect(port: port)  // listening
        let reader = DaemonProcess(arguments: ["--source", "tcp://127.0.0.1:\(port)", "--format", "json"])
        try reader.start()
        #expect(await Self.waitForHeadings(reader, 20), "stderr: \(reader.errors)")
        await Self.stop(reader)
        await Self.stop(feed)
        let sent = Self.trueHeadings(feed)
        let read = Self.trueHeadings(reader)
        #expect(read.count >= 20)
        for value in read {
            #expect(sent.contains { abs($0 - value) <= 0.0501 || abs(abs($0 - value) - 360) <= 0.0501 }, "\(value) was never sent: \(sent)")
        }
        #expect(Self.headings(reader).allSatisfy { $0["source"] as? String == "tcp://127.0.0.1:\(port)" })
    }

    @Test func aFeedThatCutsMidSentenceOrStallsIsReconnectedAndNeverMisread() async throws {
        let server = try FeedServer()
        // 4 s: long enough that a loaded machine's test steps never look like a stall to headingd.
        let url = "tcp://127.0.0.1:\(server.port)?no_data_timeout=4"
        let daemon = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "30"])
        try daemon.start()
        // 1: a heading, then half a sentence and the connection drops.
        let first = try #require(await server.accept())
        first.send(Sentence.make("HEHDT,10.0,T") + "$HEHDT,2")
        #expect(await Self.waitForHeadings(daemon, 1))
        _ = consume first
        // 2: reconnected; its bytes are not joined to the half sentence ("$HEHDT,2" + "0.0,T…" would read 20).
        let second = try #require(await server.accept())
        second.send("0.0,T*00\r\n" + Sentence.make("HEHDT,30.0,T"))
        #expect(await Self.waitForHeadings(daemon, 2), "stderr: \(daemon.errors)")
        // … then it stalls: after no_data_timeout (4 s) headingd calls it dead and connects again.
        let third = try #require(await server.accept(timeout: .seconds(20)))
        #expect(
            await daemon.wait(timeout: .seconds(10), untilErrorsContain: "sent nothing for 4.0 seconds (no_data_timeout); reconnecting"),
            "stderr: \(daemon.errors)"
        )
        third.send(Sentence.make("HEHDT,40.0,T"))
        #expect(await Self.waitForHeadings(daemon, 3), "stderr: \(daemon.errors)")
        await Self.stop(daemon)
        #expect(Self.trueHeadings(daemon) == [10, 30, 40])
        #expect(daemon.errors.contains("malformedInput: a sentence was cut short (8 bytes"), "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains("malformedInput: not an NMEA 0183 sentence"), "the orphan tail is refused: \(daemon.errors)")
        withExtendedLifetime(second) {}  // held to here: an optimised build may end a value at its last use
    }

    @Test func aPeerThatNeverEndsItsLineCostsNoMemory() async throws {
        let server = try FeedServer()
        let url = "tcp://127.0.0.1:\(server.port)"
        let daemon = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "3600"])
        try daemon.start()
        let connection = try #require(await server.accept())
        connection.send(Sentence.make("HEHDT,1.0,T"))
        #expect(await Self.waitForHeadings(daemon, 1), "stderr: \(daemon.errors)")
        let before = try #require(daemon.residentKiB)
        // 64 MiB of printable bytes without a line end (a hostile or broken peer), then a sentence.
        let chunk = [UInt8](repeating: UInt8(ascii: "A"), count: 1 << 20)
        let sent = await offCooperativePool { (0..<64).allSatisfy { _ in connection.send(bytes: chunk) } }
        #expect(sent)
        connection.send("\r\n" + Sentence.make("HEHDT,2.0,T"))
        #expect(await Self.waitForHeadings(daemon, 2), "stderr: \(daemon.errors)")
        let after = try #require(daemon.residentKiB)
        await Self.stop(daemon)
        #expect(after - before < 4096, "resident memory grew from \(before) KiB to \(after) KiB")
        #expect(daemon.errors.contains("malformedInput: line of \(64 << 20) bytes is longer than 1024; skipped"), "stderr: \(daemon.errors)")
        #expect(Self.trueHeadings(daemon) == [1, 2])
    }

    // MARK: UDP

    @Test func udpDatagramsOfOneSeveralAndHalfSentencesFromTwoSenders() async throws {
        let port = GPSFake.freePort()
        let url = "udp://:\(port)"
        let daemon = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "30"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "\(url): open"), "stderr: \(daemon.errors)")
        let gyro = try UDPSender(port: port)
        let compass = try UDPSender(port: port)
        let split = Sentence.make("HEHDT,12.5,T")
        gyro.send(Sentence.make("HEHDT,10.0,T") + Sentence.make("HEHDT,11.0,T"))  // two in one datagram
        gyro.send(String(split.prefix(8)))  // half a sentence …
        compass.send(Sentence.make("HCHDM,200.0,M").replacingOccurrences(of: "\r\n", with: ""))  // another sender between the halves, no line end
        gyro.send(String(split.dropFirst(8)))  // … and its other half: joined, this sender's own
        gyro.send("$HEHDT,13")  // half a sentence whose rest never comes …
        gyro.send(Sentence.make("HEHDT,14.0,T"))  // … refused, not joined to the next
        #expect(await Self.waitForHeadings(daemon, 5), "stderr: \(daemon.errors)")
        await Self.stop(daemon)
        let values = Self.headings(daemon).map { ($0["trueHeading"] as? Double) ?? ($0["magneticHeading"] as? Double) ?? -1 }
        #expect(values == [10, 11, 200, 12.5, 14], "stdout: \(daemon.output) stderr: \(daemon.errors)")
        #expect(daemon.errors.components(separatedBy: "a sentence was cut short (9 bytes").count == 2, "stderr: \(daemon.errors)")
    }

    /// Hostile peers on UDP: 300 senders each leaving half a line (the per-sender lines are
    /// bounded in number and length), then 4 MiB of random bytes in datagrams; memory stays flat
    /// and a good sentence afterwards is still a heading.
    @Test func hostileDatagramsCostNoMemoryAndGoodOnesStillArrive() async throws {
        let port = GPSFake.freePort()
        let url = "udp://:\(port)"
        let daemon = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "3600"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "\(url): open"), "stderr: \(daemon.errors)")
        let first = try UDPSender(port: port)
        first.send(Sentence.make("HEHDT,1.0,T"))
        #expect(await Self.waitForHeadings(daemon, 1), "stderr: \(daemon.errors)")
        let before = try #require(daemon.residentKiB)
        // The senders made here, where a failure fails the test: the hostile phase cannot vanish
        // (before, a sender that could not be made skipped it, and memory was "flat" under no load).
        let senders = try (0..<300).map { _ in try UDPSender(port: port) }
        let noise = try UDPSender(port: port)
        await offCooperativePool {
            for sender in senders {
                sender.send(bytes: Array("$HEHDT,".utf8) + [UInt8](repeating: UInt8(ascii: "9"), count: 1000))
            }
            var generator = SystemRandomNumberGenerator()
            for index in 0..<(4 * 1024) {
                noise.send(bytes: (0..<1024).map { _ in UInt8.random(in: 0...255, using: &generator) })
                if index % 64 == 63 { usleep(1000) }  // the socket's buffer, not headingd, would drop the rest
            }
        }
        first.send(Sentence.make("HEHDT,2.0,T"))
        #expect(await daemon.wait(timeout: .seconds(20)) { output, _ in output.contains(#""trueHeading":2.0"#) }, "stderr: \(daemon.errors.suffix(2000))")
        // headingd heard the hostile phase: its overlong sentences are a malformedInput fault.
        #expect(daemon.errors.contains("malformedInput"), "stderr: \(daemon.errors.suffix(2000))")
        let after = try #require(daemon.residentKiB)
        await Self.stop(daemon)
        #expect(after - before < 4096, "resident memory grew from \(before) KiB to \(after) KiB")
    }

    @Test func aSourceThatHearsNoHeadingSaysWhatItHeardOnce() async throws {
        let port = GPSFake.freePort()
        let url = "udp://:\(port)?talker=HE"
        let daemon = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "1"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "udp://:\(port): open"), "stderr: \(daemon.errors)")
        let gnss = try UDPSender(port: port)
        for _ in 0..<5 { gnss.send(Sentence.make("GPRMC,120000.00,A,5430.0,N,01010.0,E,0.0,,241126,,,A")) }
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "stale: open for"), "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains("none with a heading; talkers seen: GP; sentences seen: RMC (this source takes talker=HE; 0 of them)"), "stderr: \(daemon.errors)")
        // Headings come: recovered.
        gnss.send(Sentence.make("HEHDT,90.0,T"))
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "recovered"), "stderr: \(daemon.errors)")
        await Self.stop(daemon)
        #expect(daemon.errors.components(separatedBy: "stale: open for").count == 2, "once: \(daemon.errors)")
    }

    // MARK: One feed, several instruments

    @Test func oneMultiplexedFeedFailsOverBetweenItsInstrumentsAndAlarmsWhenTheyDisagree() async throws {
        let server = try FeedServer()
        let gyro = "tcp://127.0.0.1:\(server.port)?talker=HE"
        let fluxgate = "tcp://127.0.0.1:\(server.port)?talker=HC"
        let daemon = DaemonProcess(arguments: [
            "--source", gyro, "--source", fluxgate, "--stale-after", "0.5", "--fail-back-hold", "1", "--disagreement", "10",
            "--disagreement-hold", "1", "--format", "json",
        ])
        try daemon.start()
        let connection = try #require(await server.accept())
        // The instruments at 10 Hz, for as long as the test runs: the gyro at `gyro` (when it
        // talks), the fluxgate at `fluxgate`. Each phase then waits for the event it causes
        // (not for a window of time, which a loaded machine can outlast).
        let instruments = Mutex<(gyro: Double?, fluxgate: Double)>((100, 101))
        let sender = Task {
            while !Task.isCancelled {
                let (gyroHeading, fluxgateHeading) = instruments.withLock { ($0.gyro, $0.fluxgate) }
                var text = Sentence.make("HCHDG,\(fluxgateHeading),0.0,E,0.0,E")
                if let gyroHeading { text = Sentence.make("HEHDT,\(gyroHeading),T") + text }
                connection.send(text)
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { sender.cancel() }
        // Both heard, the gyro first in the list: headings from the gyro.
        #expect(await daemon.wait(timeout: .seconds(20)) { output, _ in output.contains("talker=HE") }, "stdout: \(daemon.output)")
        instruments.withLock { $0.gyro = nil }  // the gyro goes silent
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "failover: headings now from \(fluxgate) instead of \(gyro)"), "stderr: \(daemon.errors)")
        instruments.withLock { $0.gyro = 100 }  // back: fail-back after the hold
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "fail-back: headings now from \(gyro) instead of \(fluxgate)"), "stderr: \(daemon.errors)")
        instruments.withLock { $0.fluxgate = 115 }  // 15° apart
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: ": disagreement: "), "stderr: \(daemon.errors)")
        sender.cancel()
        await Self.stop(daemon)
        #expect(server.connections == 1, "the feed is read once for both sources")
        let sources = Self.headings(daemon).compactMap { $0["source"] as? String }
        #expect(sources.contains(gyro) && sources.contains(fluxgate))
    }

    @Test func aReplaySelectsItsInstrumentToo() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("mux.nmea").path
        let text = [Sentence.make("HEHDT,10.0,T"), Sentence.make("HCHDM,200.0,M"), Sentence.make("HEHDT,11.0,T"),
            Sentence.make("GPRMC,120000.00,A,5430.0,N,01010.0,E,5.0,45.0,241126,,,A")].joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let gyro = try await DaemonProcess.run(["--source", "replay:\(path)?talker=HE", "--speed", "max", "--format", "json"])
        #expect(Self.trueHeadings(gyro) == [10, 11])
        #expect(Self.headings(gyro).allSatisfy { $0["source"] as? String == "replay:\(path)?talker=HE" })
        let compass = try await DaemonProcess.run(["--source", "replay:\(path)?sentences=HDM", "--speed", "max", "--format", "json"])
        #expect(Self.headings(compass).map { $0["magneticHeading"] as? Double } == [200])
        let refused = try await DaemonProcess.run(["--source", "replay:\(path)?talker=HEX"])
        #expect(refused.terminationStatus == 78)
        #expect(refused.errors.contains("source parameter talker must be two-letter talker IDs"), "\(refused.errors)")
        let notForSimulation = try await DaemonProcess.run(["--source", "simulation?talker=HE"])
        #expect(notForSimulation.terminationStatus == 78)
    }

    // MARK: Parity

    /// The recordings of Tests/Fixtures that are text. (bu303-moving.log and sirfstarv.log are
    /// SiRF binary: a replay refuses them once, a stream once each time it opens; see
    /// ``aBinaryStreamIsReportedOnceNotOnceALine()``.)
    static let textRecordings = ["course-over-ground.nmea", "failover-gap.nmea", "ths-compass.nmea", "hemi.gpspipe.jsonl"]
        + ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("gpsd-logs").path)) ?? [])
        .filter { $0.hasSuffix(".log") && $0 != "bu303-moving.log" && $0 != "sirfstarv.log" }.sorted().map { "gpsd-logs/\($0)" }

    /// The last line of a feed in the parity test: a heading no recording has.
    static let endMarker = Sentence.make("ZZHDT,123.456,T")

    /// Every text recording in Tests/Fixtures gives the same headings and faults through a TCP
    /// feed, UDP datagrams and a serial line as replayed from the file (timestamps aside).
    @Test(arguments: textRecordings)
    func aRecordingReadsTheSameReplayedAsOverTCPUDPAndASerialLine(_ name: String) async throws {
        let path = Self.fixtures.appendingPathComponent(name).path
        let replay = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max", "--format", "json", "--stale-after", "3600"])
        let expected = Self.comparable(replay)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // TCP: the whole file in one connection.
        let server = try FeedServer()
        let tcp = DaemonProcess(arguments: ["--source", "tcp://127.0.0.1:\(server.port)", "--format", "json", "--stale-after", "3600"])
        try tcp.start()
        let connection = try #require(await server.accept())
        connection.send(bytes: bytes + Array(("\n" + Self.endMarker).utf8))
        #expect(await tcp.wait(timeout: .seconds(20)) { output, _ in output.contains("123.456") }, "\(name): \(tcp.errors)")
        await Self.stop(tcp)
        #expect(Self.comparable(tcp) == expected, "\(name) over TCP: \(Self.difference(Self.comparable(tcp), expected))")
        // UDP: one line a datagram, as a gateway sends them.
        let port = GPSFake.freePort()
        let udp = DaemonProcess(arguments: ["--source", "udp://127.0.0.1:\(port)", "--format", "json", "--stale-after", "3600"])
        try udp.start()
        #expect(await udp.wait(timeout: .seconds(10), untilErrorsContain: ":\(port): open"))
        // The pacing below reads the kernel's table: it must see headingd's socket there.
        #expect(UDPSender.sockets(port: port).contains { $0.contains("0100007F:\(String(format: "%04X", port)) 00000000:0000") }, "\(UDPSender.sockets(port: port))")
        let sender = try UDPSender(port: port)
        for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            sender.send(bytes: Array(line) + [0x0A])
            if index % 16 == 15 { await sender.waitForRoom() }  // the socket's buffer, not the decoder, is the bound
        }
        // The marker again each second: a datagram lost on a busy machine shows below as the
        // lines that differ and the kernel's drop count, not as a wait that ran out.
        var markerSeen = false
        for _ in 0..<20 where !markerSeen {
            sender.send(Self.endMarker)
            markerSeen = await udp.wait(timeout: .seconds(1)) { output, _ in output.contains("123.456") }
        }
        let socketsAfterSending = UDPSender.sockets(port: port)
        #expect(markerSeen, "\(name): the kernel's sockets on the port: \(socketsAfterSending); \(udp.errors)")
        await Self.stop(udp)
        #expect(
            Self.comparable(udp) == expected,
            "\(name) over UDP: \(Self.difference(Self.comparable(udp), expected)); the kernel's sockets on the port after sending (queues, drops): \(socketsAfterSending)"
        )
        // A serial line: the file written into a pty at 4800 baud.
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ends = (directory.appendingPathComponent("instrument").path, directory.appendingPathComponent("headingd").path)
        let pair = try PTYPair(ends)
        defer { pair.end() }
        let url = "serial://\(ends.1)?baud=4800"
        let serial = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "3600"])
        try serial.start()
        #expect(await serial.wait(timeout: .seconds(10), untilErrorsContain: "\(url): open"))
        let instrument = ends.0
        let all = bytes + Array(("\n" + Self.endMarker).utf8)
        #expect(await offCooperativePool { PTYPair.write(bytes: all, to: instrument) })
        #expect(await serial.wait(timeout: .seconds(20)) { output, _ in output.contains("123.456") }, "\(name): \(serial.errors)")
        await Self.stop(serial)
        #expect(Self.comparable(serial) == expected, "\(name) over a serial line: \(Self.difference(Self.comparable(serial), expected))")
    }

    @Test func aBinaryStreamIsReportedOnceNotOnceALine() async throws {
        let bytes = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("gpsd-logs/sirfstarv.log")))
        let server = try FeedServer()
        let url = "tcp://127.0.0.1:\(server.port)"
        let daemon = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "3600"])
        try daemon.start()
        let connection = try #require(await server.accept())
        connection.send(bytes: bytes + Array(("\n" + Self.endMarker).utf8))
        #expect(await daemon.wait(timeout: .seconds(20)) { output, _ in output.contains("123.456") }, "\(daemon.errors)")
        await Self.stop(daemon)
        #expect(daemon.errors.components(separatedBy: "\(url): unsupportedInput: binary data, not NMEA 0183").count == 2, "\(daemon.errors)")
        #expect(!daemon.errors.contains("binary data in sentence"), "\(daemon.errors)")
    }

    /// Where two lists first differ, for a failure's message.
    static func difference(_ got: [String], _ expected: [String]) -> String {
        let index = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, expected.count)
        return "\(got.count) against \(expected.count) items; at \(index): \(index < got.count ? got[index] : "nothing") against \(index < expected.count ? expected[index] : "nothing")"
    }

    /// Headings' values and kinds, then the first fault of each code with its reason (without
    /// file and line), in order. A value the World Magnetic Model derived (more than four decimals) depends on the
    /// heading's date, which a replay takes from the recording (2014: outside WMM2025's years, so
    /// nothing is derived) and a live feed from the clock: it is compared as "derived or unknown".
    static func comparable(_ daemon: DaemonProcess) -> [String] {
        let headings = headings(daemon).compactMap { object -> String? in
            if object["trueHeading"] as? Double == 123.456 { return nil }  // the end marker
            return ["trueHeading", "magneticHeading", "accuracy", "pitch", "roll", "kind", "magneticVariation"].map { key in
                let isModelled = key == "trueHeading" || key == "magneticHeading" || key == "magneticVariation"
                guard let value = object[key] else { return isModelled ? "derived or unknown" : "-" }
                let text = "\(value)"
                let isDerived = value is Double && text.firstIndex(of: ".").map { text[text.index(after: $0)...].count > 4 } == true
                // The model gives nothing for a date outside its years (a replay of 2014): unknown, or derived now.
                if isModelled, isDerived || value is NSNull { return "derived or unknown" }
                return text
            }.joined(separator: " ")
        }
        let faults = daemon.errors.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("headingd: fault: "), !line.contains(": sourceUnavailable: "), !line.contains(": stale: "),
                !line.contains(": magneticModelOutdated: ")
            else { return nil }
            // "headingd: fault: SOURCE: CODE: [FILE:LINE: ]REASON" → "CODE: REASON"
            let rest = line.dropFirst("headingd: fault: ".count)
            guard let afterSource = rest.range(of: ": ")?.upperBound else { return String(rest) }
            var text = String(rest[afterSource...])
            if let location = text.range(of: #"^[a-zA-Z]+ at [^ ]+:[0-9]+: "#, options: .regularExpression) {
                let codeName = text[..<text.firstIndex(of: " ")!]
                text = codeName + ": " + text[location.upperBound...]
            }
            return text
        }
        // A flood's lines after its first are summarised — a live source's within 10 s, a
        // replay's past its first hundred — so the first of each code is what both name alike.
        var codesSeen: Set<Substring> = []
        let firstOfEachCode = faults.filter { codesSeen.insert($0.prefix(while: { $0 != ":" })).inserted }
        return headings + firstOfEachCode
    }
}

/// A UDP socket sending datagrams to 127.0.0.1:`port`: an instrument or a WiFi gateway.
final class UDPSender: Sendable {
    private let descriptor: Int32
    private let port: UInt16

    init(port: UInt16) throws {
        self.port = port
        descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
    }

    deinit { close(descriptor) }

    /// Sends one datagram.
    func send(_ text: some StringProtocol) { send(bytes: Array(text.utf8)) }

    /// Waits (at most `timeout`) until the receiver's socket holds less than `bytes` unread, as
    /// the kernel reports it in /proc/net/udp: a sender paced by the receiver's progress, not by a
    /// fixed sleep that a busy machine outruns (21 of 1,628 datagrams were dropped once, in a
    /// fresh-clone run while the machine compiled). The bound is long (60 s): with a 10 s one, a
    /// fresh-clone run whose two cores also ran Chromium, a fleet of three headingd and 10,000
    /// reloads once lost 349 of 1,628 datagrams — the receiver starved, the sender went on.
    func waitForRoom(below bytes: Int = 16 * 1024, timeout: Duration = .seconds(60)) async {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, Self.unread(port: port) >= bytes {
            try? await Task.sleep(for: .milliseconds(1))  // the kernel's queue, polled, bounded
        }
    }

    /// The most unread bytes of a UDP socket bound to `port` (IPv4 and IPv6).
    static func unread(port: UInt16) -> Int {
        let suffix = ":" + String(format: "%04X", port)
        var most = 0
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = WholeFile.read(path: table).map({ String(decoding: $0, as: UTF8.self) }) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 4, fields[1].hasSuffix(suffix) else { continue }
                let queues = fields[4].split(separator: ":")
                if queues.count == 2, let unread = Int(queues[1], radix: 16) { most = max(most, unread) }
            }
        }
        return most
    }

    /// The kernel's lines for the UDP sockets bound to `port` (local and remote address, queues,
    /// inode and drop count), for a failure's message.
    static func sockets(port: UInt16) -> [String] {
        let suffix = ":" + String(format: "%04X", port)
        return ["/proc/net/udp", "/proc/net/udp6"].flatMap { table -> [String] in
            guard let text = WholeFile.read(path: table).map({ String(decoding: $0, as: UTF8.self) }) else { return [] }
            return text.split(separator: "\n").dropFirst().filter { line in
                let fields = line.split(separator: " ")
                return fields.count > 4 && fields[1].hasSuffix(suffix)
            }.map { $0.split(separator: " ").joined(separator: " ") }
        }
    }

    /// Sends one datagram of bytes.
    func send(bytes: [UInt8]) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}

/// `exec:` and `stdin:`: a driver program in any language, and a pipe.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdDriverSourceTests {
    /// A Python driver: `COUNT` gyro sentences at 20 Hz, a line on standard error, then exit 3
    /// (or, with `forever`, it ignores SIGTERM and never ends).
    static let driver = """
        #!/usr/bin/env python3
        import os, signal, sys, time
        def sentence(body):
            checksum = 0
            for character in body: checksum ^= ord(character)
            return "$%s*%02X" % (body, checksum)
        if sys.argv[2:] == ["forever"]:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            open(sys.argv[1] + ".pid", "w").write(str(os.getpid()))
        print("driver says hello", file=sys.stderr, flush=True)
        count = int(sys.argv[1].rsplit("-", 1)[-1]) if sys.argv[2:] != ["forever"] else 10**9
        for index in range(count):
            print(sentence("HEHDT,%.1f,T" % (10 + index)), flush=True)
            time.sleep(0.05)
        sys.exit(3)
        """

    @Test func aDriverProgramIsASourceRestartedWhenItExitsAndEndedWithHeadingd() async throws {
        let directory = try HeadingdStreamSourceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("driver.py").path
        try Data(Self.driver.utf8).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
        let url = "exec:\(script)?args=\(directory.path)/run-5"
        let daemon = DaemonProcess(arguments: ["--source", url, "--format", "json", "--stale-after", "30"])
        try daemon.start()
        #expect(await HeadingdStreamSourceTests.waitForHeadings(daemon, 10), "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains("\(script): driver says hello"), "its standard error is logged: \(daemon.errors)")
        #expect(daemon.errors.contains("sourceUnavailable: driver \(script) exited with status 3; retrying in"), "\(daemon.errors)")
        await HeadingdStreamSourceTests.stop(daemon)
        #expect(Array(HeadingdStreamSourceTests.trueHeadings(daemon).prefix(10)) == [10, 11, 12, 13, 14, 10, 11, 12, 13, 14])

        // A driver that ignores SIGTERM is killed when headingd stops, within its stop timeout.
        let stubborn = DaemonProcess(arguments: ["--source", "exec:\(script)?args=\(directory.path)/stubborn,forever", "--format", "json"])
        try stubborn.start()
        #expect(await HeadingdStreamSourceTests.waitForHeadings(stubborn, 3), "stderr: \(stubborn.errors)")
        let pid = try #require(Int32(String(contentsOfFile: "\(directory.path)/stubborn.pid", encoding: .utf8)))
        let stopping = ContinuousClock.now
        stubborn.send(SIGTERM)
        #expect(await stubborn.waitForExit(timeout: .seconds(10)))
        #expect(stubborn.terminationStatus == 0, "stderr: \(stubborn.errors)")
        #expect((stubborn.exitedAt ?? .now) - stopping < .seconds(5))  // as the reaping thread saw it
        #expect(kill(pid, 0) != 0, "the driver is gone")
    }

    @Test func badDriversAreRefusedWithTheirReason() async throws {
        for (source, reason) in [
            ("exec:driver.py", "a driver is exec:/ABSOLUTE/PATH"),
            ("exec:/bin/true?argv=1", "unknown exec parameter 'argv'"),
        ] {
            let daemon = try await DaemonProcess.run(["--source", source])
            #expect(daemon.terminationStatus == 78, "\(source): \(daemon.errors)")
            #expect(daemon.errors.contains(reason), "\(source): \(daemon.errors)")
        }
        // A driver that cannot be started is a fault, retried.
        let missing = DaemonProcess(arguments: ["--source", "exec:/nonexistent/driver"])
        try missing.start()
        #expect(await missing.wait(timeout: .seconds(10), untilErrorsContain: "cannot start /nonexistent/driver: No such file or directory; retrying in"))
        await HeadingdStreamSourceTests.stop(missing)
    }

    @Test func standardInputIsASourceAndItsEndEndsHeadingd() async throws {
        let process = Process()
        process.executableURL = DaemonProcess.executableURL
        process.arguments = ["--source", "stdin:", "--format", "json", "--stale-after", "30"]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = nil
        process.environment = environment
        try process.run()
        input.fileHandleForWriting.write(Data((Sentence.make("HEHDT,45.0,T") + Sentence.make("HEHDT,46.0,T")).utf8))
        try input.fileHandleForWriting.close()
        // As `cat log.nmea | headingd --source stdin:`: the headings, then headingd ends by itself.
        let (text, rest) = await offCooperativePool { () -> (String, String) in
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            let said = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (String(decoding: printed, as: UTF8.self), String(decoding: said, as: UTF8.self))
        }
        #expect(text.contains(#""trueHeading":45.0"#) && text.contains(#""trueHeading":46.0"#), "\(text)")
        #expect(process.terminationStatus == 0, "\(rest)")
        #expect(rest.components(separatedBy: "sourceUnavailable: standard input ended").count == 2, "\(rest)")
    }
}
