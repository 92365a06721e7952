// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The NMEA 0183 TCP output, with real peers: a plain TCP client, several of them, one that
/// never reads, and a real gpsd that takes headingd's output as its device.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdNMEATCPTests {
    /// headingd on the simulation (seed 1), JSON on stdout, NMEA over TCP on a port of the test's own.
    private func start(_ extra: [String], rate: Int = 20) throws -> (DaemonProcess, UInt16) {
        let port = GPSFake.freePort()
        let daemon = DaemonProcess(
            arguments: ["--format", "json", "--rate", "\(rate)", "--nmea-tcp", "127.0.0.1:\(port)"] + extra
        )
        try daemon.start()
        return (daemon, port)
    }

    /// The true headings headingd printed, from its JSON lines.
    private func printedHeadings(_ daemon: DaemonProcess) -> [Double] {
        daemon.outputLines.compactMap { line in
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return object["trueHeading"] as? Double
        }
    }

    /// Whether a sentence's checksum is right.
    private func checksumIsRight(_ sentence: String) -> Bool {
        guard sentence.hasPrefix("$"), let star = sentence.lastIndex(of: "*") else { return false }
        let body = sentence[sentence.index(after: sentence.startIndex)..<star]
        let sum = body.utf8.reduce(UInt8(0), ^)
        return sentence[sentence.index(after: star)...] == String(format: "%02X", sum)
    }

    private func stop(_ daemon: DaemonProcess) async {
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
    }

    @Test func aClientGetsTheHeadingsHeadingdPrintsAsCheckedSentences() async throws {
        let (daemon, port) = try start(["--nmea-rate", "0", "--nmea-sentences", "HDT,THS"])
        let client = try await LineClient.connect(port: port)
        var sentences: [String] = []
        while sentences.count < 40, let line = await client.readLine() { sentences.append(line) }
        await stop(daemon)
        #expect(sentences.count == 40)
        #expect(sentences.allSatisfy(checksumIsRight), "\(sentences.filter { !checksumIsRight($0) })")
        #expect(sentences.allSatisfy { $0.hasPrefix("$IIHDT,") || $0.hasPrefix("$IITHS,") })
        let printed = printedHeadings(daemon)
        let sent = sentences.filter { $0.hasPrefix("$IIHDT,") }.compactMap { Double($0.split(separator: ",")[1]) }
        #expect(sent.count == 20)
        for value in sent {
            // HDT has one decimal: a printed x.x5 is written 0.05 away, which in doubles can be a
            // hair over 0.05 (|324.85 - 324.9| = 0.0500000000000114).
            #expect(printed.contains { abs($0 - value) <= 0.0501 || abs(abs($0 - value) - 360) <= 0.0501 }, "\(value) was never printed")
        }
        // The simulation is a simulator: THS mode S.
        #expect(sentences.filter { $0.hasPrefix("$IITHS,") }.allSatisfy { $0.contains(",S*") })
    }

    /// The issue's "done when": a real gpsd reads headingd's output as its device and reports the
    /// same headings (gpsd 3.22 makes an ATT report of each HDT).
    @Test func aRealGpsdReadsTheOutputAsItsDeviceAndReportsTheSameHeadings() async throws {
        let (daemon, port) = try start(["--nmea-sentences", "HDT", "--nmea-rate", "0"], rate: 10)
        _ = try await LineClient.connect(port: port)  // listening
        let gpsdPort = GPSFake.freePort()
        let gpsd = Process()
        gpsd.executableURL = URL(fileURLWithPath: "/usr/sbin/gpsd")
        gpsd.arguments = ["-N", "-n", "-S", "\(gpsdPort)", "tcp://127.0.0.1:\(port)"]
        gpsd.standardOutput = FileHandle.nullDevice
        gpsd.standardError = FileHandle.nullDevice
        try gpsd.run()
        defer {
            // Not terminate(): a child started from a test thread inherits the thread's signal mask,
            // in which libdispatch blocks SIGTERM.
            kill(gpsd.processIdentifier, SIGKILL)
            gpsd.waitUntilExit()
        }
        let client = try await LineClient.connect(port: gpsdPort)
        client.send("?WATCH={\"enable\":true,\"json\":true}\n")
        var reported: [Double] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while reported.count < 5, ContinuousClock.now < deadline, let line = await client.readLine(timeout: .seconds(5)) {
            guard line.contains("\"class\":\"ATT\""), let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let heading = object["heading"] as? Double
            else { continue }
            reported.append(heading)
        }
        await stop(daemon)
        #expect(reported.count == 5, "gpsd reported \(reported)")
        let printed = printedHeadings(daemon)
        for value in reported {
            #expect(printed.contains { abs($0 - value) <= 0.0501 || abs(abs($0 - value) - 360) <= 0.0501 }, "gpsd's \(value) was never printed")  // as above
        }
    }

    /// A third-party parser, pynmea2 (Debian's python3-nmea2), reads every sentence of a long run
    /// with every sentence type, dropouts (THS V) included: checksums and field counts. pynmea2
    /// 1.15 does not know THS: its checksum is checked with pynmea2's own function, its fields here.
    @Test func pynmea2AcceptsEverySentenceOfALongRun() async throws {
        let (daemon, port) = try start(
            ["--nmea-rate", "0", "--nmea-sentences", "HDT,HDM,HDG,THS,ROT", "--dropout-interval", "1", "--dropout-duration", "0.2"],
            rate: 1000
        )
        _ = try await LineClient.connect(port: port)  // listening
        let script = """
            import socket, sys, collections, pynmea2
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); f = s.makefile("rb")
            counts = collections.Counter(); bad = []
            while sum(counts.values()) < 5000:
                line = f.readline().decode("ascii").rstrip("\\r\\n")
                kind = line[3:6]
                try:
                    if kind == "THS":
                        body, checksum = line[1:].split("*")
                        assert "%02X" % pynmea2.NMEASentence.checksum(body) == checksum and len(body.split(",")) == 3
                    else:
                        message = pynmea2.parse(line, check=True)
                        assert len(message.data) == len(type(message).fields), "field count"
                    counts[kind] += 1
                except Exception as error:
                    bad.append((line, error)); counts["bad"] += 1
            print(dict(counts), bad[:3])
            sys.exit(1 if bad else 0)
            """
        // Debian's python3, with python3-nmea2; waited for on a thread of its own.
        let (status, output, errors) = try await Command.run("/usr/bin/python3", ["-c", script, "\(port)"])
        await stop(daemon)
        #expect(status == 0, "pynmea2: \(output) \(errors)")
        for kind in ["HDT", "HDM", "HDG", "THS", "ROT"] { #expect(output.contains("'\(kind)'"), "no \(kind) in \(output)") }
        print("pynmea2 over 5000 sentences: \(output)")
    }

    @Test func theSeventeenthClientIsRefusedWithOneLogLineAndTheSixteenServedOn() async throws {
        let (daemon, port) = try start([])  // max_clients at its default, 16
        var admitted: [LineClient] = []
        for _ in 0..<16 { admitted.append(try await LineClient.connect(port: port)) }
        for client in admitted { #expect(await client.readLine() != nil) }
        let seventeenth = try await LineClient.connect(port: port)
        #expect(await seventeenth.waitForClose(timeout: .seconds(5)))
        #expect(await daemon.wait(untilErrorsContain: "refused: 16 clients already connected"))
        #expect(daemon.errors.components(separatedBy: "refused:").count == 2, "one line: \(daemon.errors)")
        for client in admitted { #expect(await client.readLine() != nil, "the sixteen are served on") }
        await stop(daemon)
    }

    @Test func aClientThatNeverReadsIsDroppedAndNeverDelaysAnother() async throws {
        let (daemon, port) = try start(["--nmea-rate", "0"], rate: 200)
        let stalled = try await LineClient.connect(port: port, receiveBuffer: 2048)
        let reader = try await LineClient.connect(port: port)
        // The reader reads on while the stalled one fills its buffers and is given up on (5 s).
        var read: [String] = []
        let before = try #require(daemon.residentKiB)
        var peak = before
        let deadline = ContinuousClock.now + .seconds(60)
        while !daemon.errors.contains("read nothing for"), ContinuousClock.now < deadline {
            if let line = await reader.readLine(timeout: .seconds(1)) { read.append(line) }
            peak = max(peak, daemon.residentKiB ?? 0)
        }
        #expect(daemon.errors.contains("disconnected: it read nothing for 5.0 seconds"), "stderr: \(daemon.errors)")
        #expect(await reader.readLine() != nil, "the reader is still served after the other is gone")
        #expect(await stalled.waitForClose(timeout: .seconds(30)))
        await stop(daemon)
        // The reader lost nothing meanwhile: its true headings are a run of the headings headingd
        // printed, one for one, in order.
        let sent = read.filter { $0.hasPrefix("$IIHDT,") }.compactMap { Double($0.split(separator: ",")[1]) }
        let printed = printedHeadings(daemon)
        #expect(sent.count > 500, "the reader got \(sent.count) headings meanwhile")
        let isRunFrom = { (start: Int) in
            start + sent.count <= printed.count
                && zip(sent, printed[start...]).allSatisfy { abs($0 - $1) <= 0.051 || abs(abs($0 - $1) - 360) <= 0.051 }
        }
        #expect(printed.indices.contains(where: isRunFrom), "the reader's \(sent.count) headings are not a run of the \(printed.count) printed")
        // The stalled client's backlog is bounded by construction (a watermark, the kernel's
        // buffers, one batch); the resident set says so from outside.
        print("RSS while a client stalled: \(before) KiB before, \(peak) KiB at most")
        #expect(peak - before < 16 * 1024, "RSS grew from \(before) KiB to \(peak) KiB")
    }

    @Test func thsSaysVWhileTheSourceIsDownAndItsModeAgainAfter() async throws {
        let (daemon, port) = try start(
            ["--nmea-sentences", "THS", "--dropout-interval", "1", "--dropout-duration", "0.5"], rate: 20
        )
        let client = try await LineClient.connect(port: port)
        var seen: [String] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, let line = await client.readLine() {
            seen.append(line)
            if let invalid = seen.firstIndex(where: { $0.hasPrefix("$IITHS,,V*") }),
                seen[invalid...].contains(where: { $0.contains(",S*") })
            {
                break
            }
        }
        await stop(daemon)
        let invalid = try #require(seen.firstIndex { $0.hasPrefix("$IITHS,,V*") }, "no THS V in \(seen.suffix(5))")
        #expect(seen[invalid...].contains { $0.contains(",S*") })
    }

    @Test func anAddressInUseEndsHeadingdWith69NamingIt() async throws {
        let (first, port) = try start([])
        _ = try await LineClient.connect(port: port)  // listening
        let second = try await DaemonProcess.run(["--nmea-tcp", "127.0.0.1:\(port)", "--count", "1"])
        #expect(second.terminationStatus == 69)
        #expect(second.errors.contains("headingd: NMEA 0183 TCP output: cannot listen on 127.0.0.1:\(port): Address already in use"))
        #expect(second.output.isEmpty, "no heading before the output failed")
        await stop(first)
    }
}

/// The NMEA 0183 UDP output, received by a real UDP socket.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdNMEAUDPTests {
    /// A UDP socket on 127.0.0.1 and a free port, receiving with a bound.
    final class Listener {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(descriptor) }

        /// The next datagram's text, or `nil` after `timeout` (waited for off the cooperative pool).
        func receive(timeout: Duration = .seconds(10)) async -> String? {
            let descriptor = descriptor
            return await offCooperativePool { Self.receive(on: descriptor, timeout: timeout) }
        }

        private static func receive(on descriptor: Int32, timeout: Duration) -> String? {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(timeout.components.seconds * 1000)
            guard poll(&request, 1, milliseconds) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 2048)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
        }
    }

    @Test func eachTargetGetsOneDatagramPerHeadingWithItsSentences() async throws {
        let first = try Listener()
        let second = try Listener()
        let daemon = DaemonProcess(arguments: [
            "--rate", "20", "--nmea-udp", "127.0.0.1:\(first.port),127.0.0.1:\(second.port)",
            "--nmea-udp-sentences", "HDT,THS", "--nmea-udp-talker", "HE", "--nmea-udp-rate", "0",
        ])
        try daemon.start()
        var datagrams: [String] = []
        while datagrams.count < 5, let datagram = await first.receive() { datagrams.append(datagram) }
        let other = await second.receive()
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
        #expect(datagrams.count == 5)
        for datagram in datagrams {
            let lines = datagram.split(separator: "\r\n").map(String.init)
            #expect(lines.count == 2 && lines[0].hasPrefix("$HEHDT,") && lines[1].hasPrefix("$HETHS,"), "\(datagram)")
        }
        #expect(other?.hasPrefix("$HEHDT,") == true)
    }

    @Test func anUnknownHostEndsHeadingdWith69NamingIt() async throws {
        let daemon = try await DaemonProcess.run(["--nmea-udp", "no-such-host.invalid:10110", "--count", "1"])
        #expect(daemon.terminationStatus == 69)
        #expect(daemon.errors.contains("headingd: NMEA 0183 UDP output: cannot send to no-such-host.invalid:10110: unknown host"), "\(daemon.errors)")
    }
}

/// The NMEA 0183 serial output, through a pty pair made by socat at 4800 baud (headingd writes to
/// one end; the test reads the other), including the line going away and coming back.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdNMEASerialTests {
    /// The next line read from `path` (opened afresh), or `nil` after `timeout`.
    private func readLine(_ path: String, timeout: Duration = .seconds(10)) async -> String? {
        await offCooperativePool { Self.readLineBlocking(path, timeout: timeout) }
    }

    private static func readLineBlocking(_ path: String, timeout: Duration) -> String? {
        let descriptor = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 200) >= 0 else { return nil }
            var byte: UInt8 = 0
            while read(descriptor, &byte, 1) == 1 {
                if byte == 0x0A, bytes.first == UInt8(ascii: "$") { return String(decoding: bytes.dropLast(), as: UTF8.self) }
                if byte == 0x0A { bytes = [] } else { bytes.append(byte) }
            }
        }
        return nil
    }

    @Test func sentencesReachTheLineWhichIsReopenedWhenItComesBack() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-serial-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ends = (directory.appendingPathComponent("headingd").path, directory.appendingPathComponent("plotter").path)
        var pair = try PTYPair(ends)
        let daemon = DaemonProcess(arguments: [
            "--rate", "10", "--nmea-serial", ends.0, "--nmea-serial-baud", "4800", "--nmea-serial-sentences", "HDT,THS",
        ])
        try daemon.start()
        let first = await readLine(ends.1, timeout: .seconds(5))
        #expect(first?.hasPrefix("$IIHDT,") == true || first?.hasPrefix("$IITHS,") == true, "read \(first ?? "nothing")")
        // The line goes away (a USB adapter pulled): a fault, then reopened once it is back.
        pair.end()
        #expect(
            await daemon.wait(timeout: .seconds(10), untilErrorsContain: "NMEA 0183 serial output: \(ends.0): the device went away; reopening in"),
            "stderr: \(daemon.errors)"
        )
        pair = try PTYPair(ends)
        #expect(
            await daemon.wait(timeout: .seconds(10), untilErrors: { $0.components(separatedBy: "writing to \(ends.0) at 4800 baud").count == 3 }),
            "stderr: \(daemon.errors)"
        )
        let again = await readLine(ends.1, timeout: .seconds(5))
        #expect(again?.hasPrefix("$II") == true, "read \(again ?? "nothing") after the line came back")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
        pair.end()
    }
}
