// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import NMEA2000
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// NMEA 2000 through the real binary: one real bus's recording (canboat's Dirona sample, two
/// heading devices) through each gateway a boat has — a Yacht Devices gateway's RAW over TCP and
/// UDP, an Actisense NGT-1 on a serial line (a socat pty), and a `candump` replay — must give the
/// same headings, in the same order, as canboat's analyzer decodes them. SocketCAN itself runs in
/// a VM (`scripts/vm/socketcan-test`): this machine's kernel has no CAN.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdNMEA2000Tests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/nmea2000")
    static let parity = fixtures.appendingPathComponent("dirona-parity.candump.log").path

    /// The analyzer's headings of one device in the parity recording: degrees, 0.1° resolution.
    static func expected(source: String) throws -> [Double] {
        try String(contentsOf: fixtures.appendingPathComponent("dirona-parity.expected.csv"), encoding: .utf8)
            .split(whereSeparator: \.isNewline).dropFirst()
            .map { (line: Substring) -> [Substring] in line.split(separator: ",", omittingEmptySubsequences: false) }
            .filter { (fields: [Substring]) -> Bool in fields[0] == source }
            .map { (fields: [Substring]) -> Double in Double(fields[1])! }
    }

    static func headings(_ daemon: DaemonProcess, _ key: String = "trueHeading") -> [Double] {
        HeadingdStreamSourceTests.headings(daemon).compactMap { $0[key] as? Double }
    }

    static func matches(_ ours: [Double], _ theirs: [Double]) -> Bool {
        ours.count == theirs.count && zip(ours, theirs).allSatisfy { abs($0 - $1) <= 0.051 }
    }

    @Test func oneBusThroughEveryGatewayGivesTheSameHeadingsAsCanboatsAnalyzer() async throws {
        let recording = try CANRecording(contentsOf: Self.parity)
        let expected = try Self.expected(source: "7")
        #expect(expected.count >= 50)
        let common = ["--format", "json", "--stale-after", "30", "--speed", "max"]

        // A candump replay: the first heading device heard is the Furuno GNSS compass at 7.
        let replay = DaemonProcess(arguments: ["--source", "replay:\(Self.parity)"] + common)
        try replay.start()
        #expect(await replay.waitForExit(timeout: .seconds(30)))
        #expect(Self.matches(Self.headings(replay), expected), "replay: \(Self.headings(replay))")
        #expect(replay.errors.contains("taking the headings of the first device heard") == false)  // a replay has no log of its own

        // YD RAW over TCP, as a YDWG-02 serves it on port 1457.
        let server = try FeedServer()
        let tcpURL = "tcp://127.0.0.1:\(server.port)?format=ydraw"
        let tcp = DaemonProcess(arguments: ["--source", tcpURL, "--format", "json", "--stale-after", "30"])
        try tcp.start()
        let connection = try #require(await server.accept())
        #expect(connection.send(recording.ydRawLines.joined()))
        #expect(await HeadingdStreamSourceTests.waitForHeadings(tcp, expected.count), "stderr: \(tcp.errors)")
        #expect(
            tcp.errors.contains("taking the headings of the first device heard sending them: device 7"), "stderr: \(tcp.errors)"
        )
        // Its NAME and maker once its address claim arrives (it is in the recording).
        #expect(tcp.errors.contains("the heading device is device 7 (Furuno heading sensor, NAME 0xC050A000E7E02C74)"), "stderr: \(tcp.errors)")
        await HeadingdStreamSourceTests.stop(tcp)
        #expect(Self.matches(Self.headings(tcp), expected), "tcp: \(Self.headings(tcp))")

        // YD RAW over UDP, as a YDWG-02 broadcasts it: a few frames a datagram.
        let port = GPSFake.freePort()
        let udpURL = "udp://:\(port)?format=ydraw"
        let udp = DaemonProcess(arguments: ["--source", udpURL, "--format", "json", "--stale-after", "30"])
        try udp.start()
        #expect(await udp.wait(timeout: .seconds(10), untilErrorsContain: "\(udpURL): open"), "stderr: \(udp.errors)")
        let sender = try UDPSender(port: port)
        let lines = recording.ydRawLines
        for start in stride(from: 0, to: lines.count, by: 8) {
            sender.send(lines[start..<min(lines.count, start + 8)].joined())
            if start % 64 == 0 { await sender.waitForRoom() }  // a gateway's pace, not a burst the socket drops
        }
        #expect(await HeadingdStreamSourceTests.waitForHeadings(udp, expected.count), "stderr: \(udp.errors)")
        await HeadingdStreamSourceTests.stop(udp)
        #expect(Self.matches(Self.headings(udp), expected), "udp: \(Self.headings(udp))")

        // An Actisense NGT-1 on USB serial, 115200 baud: sent its start-up message, then the bus.
        let directory = try HeadingdStreamSourceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ends = (directory.appendingPathComponent("ngt1").path, directory.appendingPathComponent("headingd").path)
        let pair = try PTYPair(ends)
        defer { pair.end() }
        let ngtURL = "serial://\(ends.1)?baud=115200&format=actisense"
        let ngt = DaemonProcess(arguments: ["--source", ngtURL, "--format", "json", "--stale-after", "30"])
        try ngt.start()
        #expect(await ngt.wait(timeout: .seconds(10), untilErrorsContain: "\(ngtURL): open"), "stderr: \(ngt.errors)")
        let device = ends.0
        let startup = await offCooperativePool { PTYPair.read(from: device, milliseconds: 1000) }
        #expect(startup.starts(with: ActisenseFrameSplitter.startupMessage), "the NGT-1 got \(startup)")
        let bytes = recording.actisenseBytes
        #expect(await offCooperativePool { PTYPair.write(bytes: bytes, to: device) })
        #expect(await HeadingdStreamSourceTests.waitForHeadings(ngt, expected.count), "stderr: \(ngt.errors)")
        await HeadingdStreamSourceTests.stop(ngt)
        #expect(Self.matches(Self.headings(ngt), expected), "ngt-1: \(Self.headings(ngt))")
    }

    @Test func deviceChoosesTheSecondCompassByAddressOrByNAME() async throws {
        let expected = try Self.expected(source: "105")
        // By address: the Maretron heading sensor's magnetic headings, all of them.
        let byAddress = DaemonProcess(arguments: ["--source", "replay:\(Self.parity)?device=105", "--format", "json", "--speed", "max", "--stale-after", "30"])
        try byAddress.start()
        #expect(await byAddress.waitForExit(timeout: .seconds(30)))
        #expect(Self.matches(Self.headings(byAddress, "magneticHeading"), expected), "\(Self.headings(byAddress, "magneticHeading")) vs \(expected)")
        // Named by its device: two replays of one bus, each with its device, are two sources.
        #expect(HeadingdStreamSourceTests.headings(byAddress).allSatisfy { ($0["source"] as? String)?.hasSuffix("?device=105") == true })
        // By NAME: only once its address claim is heard (mid-recording), then the same headings.
        let byName = DaemonProcess(
            arguments: ["--source", "replay:\(Self.parity)?device=0xC050A003113125EF", "--format", "json", "--speed", "max", "--stale-after", "30"]
        )
        try byName.start()
        #expect(await byName.waitForExit(timeout: .seconds(30)))
        let named = Self.headings(byName, "magneticHeading")
        #expect(!named.isEmpty && named.count < expected.count)
        #expect(Self.matches(named, Array(expected.suffix(named.count))))
        // A device= that is neither an address nor a NAME is refused with its reason.
        let wrong = DaemonProcess(arguments: ["--source", "replay:\(Self.parity)?device=255", "--check-config"])
        try wrong.start()
        #expect(await wrong.waitForExit(timeout: .seconds(10)))
        #expect(wrong.terminationStatus != 0)
        #expect(wrong.errors.contains("device must be an NMEA 2000 address (0 to 253) or a device's 64-bit NAME"), "stderr: \(wrong.errors)")
    }

    /// Two compasses on one bus, one gateway connection: two sources the processor ranks. The
    /// first goes silent, the second takes over within stale_after; they disagree, the fault
    /// names both.
    @Test func twoDevicesOnOneBusFailOverAndDisagree() async throws {
        let server = try FeedServer()
        let base = "tcp://127.0.0.1:\(server.port)?format=ydraw"
        let daemon = DaemonProcess(
            arguments: [
                "--source", base + "&device=7", "--source", base + "&device=105", "--format", "json",
                "--stale-after", "0.5", "--fail-back-hold", "1", "--disagreement", "20", "--disagreement-hold", "0.5",
            ]
        )
        try daemon.start()
        let connection = try #require(await server.accept())
        #expect(server.connections == 1)  // one feed, read once, for both sources
        func send(_ frames: [CANFrame]) -> Bool {
            connection.send(frames.map { CANRecording.ydRawLine($0, time: Date().timeIntervalSince1970) }.joined())
        }
        // Both agree: headings from the first source.
        for step in 0..<10 {
            #expect(send([CANRecording.vesselHeading(100, source: 7, sequence: UInt8(step)), CANRecording.vesselHeading(101, source: 105)]))
            try await Task.sleep(for: .milliseconds(100))
        }
        // The first goes silent: the second takes over.
        for _ in 0..<15 {
            #expect(send([CANRecording.vesselHeading(102, source: 105)]))
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(
            await daemon.wait(timeout: .seconds(10), untilErrorsContain: "sourceChanged"), "stderr: \(daemon.errors)"
        )
        #expect(daemon.errors.contains("device=105"), "stderr: \(daemon.errors)")
        // Both again, 60° apart: the disagreement fault names both devices.
        for _ in 0..<15 {
            #expect(send([CANRecording.vesselHeading(100, source: 7), CANRecording.vesselHeading(160, source: 105)]))
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "disagreement"), "stderr: \(daemon.errors)")
        let disagreement = daemon.errors.split(separator: "\n").first { $0.contains("disagreement") } ?? ""
        #expect(disagreement.contains("device=7") && disagreement.contains("device=105"), "\(disagreement)")
        await HeadingdStreamSourceTests.stop(daemon)
    }
}
