// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import HeadingPorts
import Testing

@testable import HeadingDaemon

#if canImport(Glibc)
import Glibc
#endif

/// Issue 36, tried as an attacker would: floods of bad lines counted, not logged; a driver's
/// background helpers ended with it; damaged state files set aside while headings flow.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdHardeningTests {
    /// One batch of bad NMEA 0183 lines: 10 bad checksums, 10 bad fields, 10 overlong lines
    /// (malformed: 30) and 10 headings out of range.
    static let badNMEA: String = {
        var lines: [String] = []
        for index in 0..<10 {
            let good = Sentence.make("HEHDT,\(index).0,T")
            lines.append(String(good.prefix(while: { $0 != "*" })) + "*00\r\n")
            lines.append(Sentence.make("HEHDT,abc\(index),T"))
            lines.append("$GPTXT," + String(repeating: "A", count: 1100) + "\r\n")
            lines.append(Sentence.make("HEHDT,4\(index)0.0,T"))
        }
        return lines.joined()
    }()

    /// The same lines one by one, each with its CR LF (40 of them).
    static let badNMEALines: [String] = badNMEA.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { $0 + "\r\n" }

    /// One batch of bad YD RAW lines: 40 that are not a frame.
    static let badYDRaw = (0..<40).map { "00:00:0\($0 % 10).000 R NOTHEX\($0) 01 02\r\n" }.joined()

    /// The counts of one source's lines on /metrics, by result.
    static func lineCounts(_ samples: [String: Double], source: String) -> [String: Double] {
        var counts: [String: Double] = [:]
        for result in ["ok", "malformed", "checksum", "out_of_range", "unsupported"] {
            counts[result] = samples["headingd_source_lines_total{source=\"\(source)\",result=\"\(result)\"}"] ?? 0
        }
        return counts
    }

    /// A TCP feed, UDP datagrams and a YD RAW gateway, each sending 800 bad lines a second among
    /// its good ones for 20 s: stderr stays under 200 lines, /metrics counts every bad line (and
    /// the faults' occurrences add up to them), and headings flow throughout.
    @Test func floodsOfBadLinesAreCountedAndSummarisedNotLoggedLineByLine() async throws {
        let httpPort = GPSFake.freePort()
        let tcpServer = try FeedServer()
        let ydServer = try FeedServer()
        let udpPort = GPSFake.freePort()
        let tcp = "tcp://127.0.0.1:\(tcpServer.port)"
        let udp = "udp://127.0.0.1:\(udpPort)"
        let yd = "tcp://127.0.0.1:\(ydServer.port)?format=ydraw"
        let daemon = DaemonProcess(arguments: [
            "--source", tcp, "--source", udp, "--source", yd, "--format", "json", "--stale-after", "3600",
            "--metrics", "--http-listen", "127.0.0.1:\(httpPort)",
        ])
        try daemon.start()
        let tcpConnection = try #require(await tcpServer.accept())
        let ydConnection = try #require(await ydServer.accept())
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "\(udp): open"), "\(daemon.errors)")
        let sender = try UDPSender(port: udpPort)
        let ydGood = try CANRecording(contentsOf: HeadingdNMEA2000Tests.parity).ydRawLines.prefix(40).joined()
        let started = ContinuousClock.now
        var batches = 0
        var goodSent = 0
        while ContinuousClock.now - started < .seconds(20) {
            let good = Sentence.make("HEHDT,\(Double(batches % 360)),T")
            #expect(tcpConnection.send(good + Self.badNMEA))
            // Ten datagrams of four bad lines each, and the good line alone: under a datagram's size.
            for index in 0..<10 { sender.send(Self.badNMEALines[(index * 4)..<(index * 4 + 4)].joined()) }
            sender.send(good)
            #expect(ydConnection.send(ydGood + Self.badYDRaw))
            batches += 1
            goodSent += 1
            if batches % 10 == 0 { await sender.waitForRoom() }  // the socket's buffer, not a sleep, paces the datagrams
            try await Task.sleep(for: .milliseconds(50))
        }
        let badPerSource = Double(batches * 40)
        let floodBatches = batches
        // Every bad line counted on /metrics: waited for (the last reads may still be under way).
        var samples: [String: Double] = [:]
        let deadline = ContinuousClock.now + .seconds(30)
        func bad(_ source: String) -> Double {
            Self.lineCounts(samples, source: source).filter { $0.key != "ok" }.values.reduce(0, +)
        }
        repeat {
            samples = HeadingdMetricsTests.samples(try await HeadingdMetricsTests.get("http://127.0.0.1:\(httpPort)/metrics").body)
            if bad(tcp) == badPerSource, bad(udp) == badPerSource, bad(yd) == badPerSource { break }
            try await Task.sleep(for: .milliseconds(200))
        } while ContinuousClock.now < deadline
        let tcpCounts = Self.lineCounts(samples, source: tcp)
        #expect(tcpCounts["checksum"] == Double(batches * 10) && tcpCounts["malformed"] == Double(batches * 20), "\(tcpCounts)")
        #expect(tcpCounts["out_of_range"] == Double(batches * 10), "\(tcpCounts)")
        #expect(Self.lineCounts(samples, source: udp) == tcpCounts, "UDP: \(Self.lineCounts(samples, source: udp))")
        #expect(bad(yd) == badPerSource, "YD RAW: \(Self.lineCounts(samples, source: yd))")
        let floodErrors = daemon.errors.split(separator: "\n")
        #expect(floodErrors.count < 200, "\(floodErrors.count) stderr lines for \(Int(badPerSource) * 3) bad lines: \(floodErrors.suffix(40))")
        // Headings flowed through the flood: the TCP feed's, the best source, every one.
        #expect(HeadingdStreamSourceTests.headings(daemon).count >= goodSent, "\(HeadingdStreamSourceTests.headings(daemon).count) of \(goodSent)")
        // The flood ends: once clean for 10 s, each code of each source says so, its last summary before it.
        // Good lines only meanwhile, as a mended instrument sends (and a TCP feed that goes quiet is reconnected).
        var calm = false
        let calmDeadline = ContinuousClock.now + .seconds(40)
        while !calm, ContinuousClock.now < calmDeadline {
            let good = Sentence.make("HEHDT,\(Double(batches % 360)),T")
            _ = tcpConnection.send(good)
            sender.send(good)
            _ = ydConnection.send(ydGood)
            batches += 1
            calm = await daemon.wait(timeout: .milliseconds(500), untilErrors: { errors in
                [tcp, udp, yd].allSatisfy { errors.contains("\($0): malformedInput: input clean again") }
            })
        }
        #expect(calm, "\(daemon.errors.suffix(3000))")
        samples = HeadingdMetricsTests.samples(try await HeadingdMetricsTests.get("http://127.0.0.1:\(httpPort)/metrics").body)
        for source in [tcp, udp] {
            let faults = ["malformedInput", "outOfRange"].map { samples["headingd_faults_total{source=\"\(source)\",code=\"\($0)\"}"] ?? 0 }
            let everyBadLine: [Double] = [Double(floodBatches * 30), Double(floodBatches * 10)]
            #expect(faults == everyBadLine, "\(source): the summaries' occurrences add up to every bad line: \(faults)")
        }
        #expect(samples["headingd_faults_total{source=\"\(yd)\",code=\"malformedInput\"}"] == badPerSource)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0, "\(daemon.errors.suffix(2000))")
        print("flood: \(Int(badPerSource) * 3) bad lines in 20 s, \(daemon.errors.split(separator: "\n").count) stderr lines in all")
    }

    /// Whether a process runs: it exists and is not a zombie waiting for its parent.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = WholeFile.read(path: "/proc/\(pid)/stat").map({ String(decoding: $0, as: UTF8.self) }),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// A driver that starts a helper in the background (`sleep 300 &`) and exits after a few
    /// lines: each run's helper is ended when that run ends, and the last when headingd stops.
    @Test func aDriversBackgroundHelpersEndWithIt() async throws {
        let directory = try HeadingdStreamSourceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("driver.sh").path
        let sentence = Sentence.make("HEHDT,10.0,T").trimmingCharacters(in: .newlines)
        try Data(
            """
            #!/bin/sh
            sleep 300 &
            echo $! >> \(directory.path)/helpers
            for i in 1 2 3 4 5 6 7 8 9 10; do printf '%s\\r\\n' '\(sentence)'; sleep 0.05; done
            [ -e \(directory.path)/forever ] && while :; do printf '%s\\r\\n' '\(sentence)'; sleep 0.05; done
            exit 0

            """.utf8
        ).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
        let daemon = DaemonProcess(arguments: ["--source", "exec:\(script)", "--format", "json", "--stale-after", "30"])
        try daemon.start()
        // The first run ends and is started again: its helper is gone while headingd runs on.
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "driver \(script) exited with status 0"), "\(daemon.errors)")
        _ = FileManager.default.createFile(atPath: directory.path + "/forever", contents: nil)
        #expect(await HeadingdStreamSourceTests.waitForHeadings(daemon, 15), "\(daemon.errors)")
        let helpers = try String(contentsOfFile: directory.path + "/helpers", encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(helpers.count >= 2, "\(helpers)")
        #expect(!Self.isRunning(helpers[0]), "the first run's helper ended with it")
        #expect(Self.isRunning(helpers[helpers.count - 1]), "the running driver's helper runs")
        await HeadingdStreamSourceTests.stop(daemon)
        let all = try String(contentsOfFile: directory.path + "/helpers", encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        for pid in all { #expect(!Self.isRunning(pid), "helper \(pid) outlived headingd") }
    }

    /// An SD card's corruption: the history, the MQTT journal and the Signal K self file are not
    /// what they should be. headingd starts, moves each aside (logged as an error naming both
    /// paths), starts new ones and prints headings; with a state directory it cannot write, it
    /// runs without the files and says so.
    @Test func damagedStateFilesAreSetAsideAndHeadingsFlow() async throws {
        let directory = try HeadingdStreamSourceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = Data("this is not a database, it is what was left of one\n".utf8) + Data((0..<4096).map { UInt8($0 % 251) })
        for name in ["history.sqlite", "mqtt-journal.sqlite", "signalk-self"] {
            try garbage.write(to: directory.appendingPathComponent(name))
        }
        let port = GPSFake.freePort()
        let arguments = [
            "--format", "json", "--history", "--mqtt", "mqtt://127.0.0.1:\(GPSFake.freePort())", "--signalk",
            "--signalk-listen", "127.0.0.1:\(port)", "--count", "5",
        ]
        let daemon = try await DaemonProcess.run(arguments, environment: ["STATE_DIRECTORY": directory.path])
        #expect(daemon.terminationStatus == 0, "\(daemon.errors)")
        #expect(HeadingdStreamSourceTests.headings(daemon).count == 5, "\(daemon.output)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        for name in ["history.sqlite", "mqtt-journal.sqlite", "signalk-self"] {
            let aside = try #require(kept.first { $0.hasPrefix(name + ".damaged-") }, "\(name) moved aside: \(kept)")
            #expect(try Data(contentsOf: directory.appendingPathComponent(aside)) == garbage, "\(aside) is the damaged file, untouched")
            #expect(kept.contains(name), "a new \(name): \(kept)")
            #expect(daemon.errors.contains("\(directory.path)/\(name)") && daemon.errors.contains("\(directory.path)/\(aside)"), "\(daemon.errors)")
        }
        #expect(daemon.errors.contains("history: cannot open \(directory.path)/history.sqlite"), "\(daemon.errors)")
        // The new files are good: a second start takes them as they are.
        let again = try await DaemonProcess.run(arguments, environment: ["STATE_DIRECTORY": directory.path])
        #expect(again.terminationStatus == 0 && !again.errors.contains("moved aside"), "\(again.errors)")

        // A state directory that cannot be written (here: a path under a file): no files, headings all the same.
        let unwritable = DaemonProcess(
            arguments: ["--format", "json", "--history", "--mqtt", "mqtt://127.0.0.1:\(GPSFake.freePort())", "--count", "5"],
            environment: ["STATE_DIRECTORY": directory.appendingPathComponent("signalk-self").path + "/state"]
        )
        try unwritable.start()
        #expect(await unwritable.waitForExit(timeout: .seconds(30)))
        #expect(unwritable.terminationStatus == 0, "\(unwritable.errors)")
        #expect(HeadingdStreamSourceTests.headings(unwritable).count == 5)
        #expect(unwritable.errors.contains("this run keeps the history in memory"), "\(unwritable.errors)")
        #expect(unwritable.errors.contains("this run keeps the MQTT journal in memory"), "\(unwritable.errors)")
    }
}
