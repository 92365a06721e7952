// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// `headingd --source replay:…` end to end: the real binary on real recordings and on bad files.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdReplayTests {
    /// A recording in `Tests/Fixtures/gpsd-logs` (see the README there for sources and licence).
    static func gpsdLog(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/gpsd-logs/\(name)").path
    }

    /// Writes `text` to a new file of its own and returns the path.
    private func temporaryFile(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-replay-\(UUID().uuidString).nmea")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private func trueHeadings(_ daemon: DaemonProcess) throws -> [Double?] {
        try daemon.outputLines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["trueHeading"] as? Double
        }
    }

    @Test func hemiGivesItsFourHeadingsAsJSONAndASummary() async throws {
        let path = Self.gpsdLog("hemi.log")
        let daemon = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max", "--format", "json"])
        #expect(daemon.exitedNormally)
        #expect(daemon.terminationStatus == 0)
        #expect(try trueHeadings(daemon) == [274.07, 274.04, 274.12, 274.11])
        #expect(daemon.errors.contains("headingd: replay of \(path): 4 headings, 0 lines skipped, 0 faults (755 lines read"))
    }

    @Test(arguments: [
        "ait250.log", "bu303-moving.log", "bundg_zeus_9.log", "haicom-305N.log", "hemi.log", "rst39.log",
        "saab-r4.log", "sirfstarv.log", "telit-he910.log", "tnt-revolution.log", "tnt-revolution.log.chk",
    ])
    func everySharedLogReplaysFlatOutAndExitsZero(log: String) async throws {
        let daemon = try await DaemonProcess.run(["--source", "replay:\(Self.gpsdLog(log))", "--speed", "max", "--format", "json"])
        #expect(daemon.exitedNormally)
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors)")
        // As many headings on stdout as the summary counts, each on the circle: a log that
        // printed nothing passes only if its summary says it had nothing.
        let counted = try #require(daemon.errors.firstMatch(of: /headingd: replay of [^\n]*: (\d+) headings?,/), "stderr: \(daemon.errors)")
        let objects = daemon.outputLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let headings = objects.compactMap { ($0["trueHeading"] ?? $0["magneticHeading"]) as? Double }
        #expect(headings.count == Int(counted.1), "\(headings.count) headings on stdout, the summary: \(counted.0)")
        #expect(headings.allSatisfy { $0 >= 0 && $0 < 360 }, "\(headings.filter { !($0 >= 0 && $0 < 360) })")
    }

    @Test func sigtermInAFlatOutReplayPrintsEveryHeadingTheSummaryCounts() async throws {
        // 200,000 HDT lines, each with its checksum (the XOR of the body's bytes): SIGTERM as soon as
        // the first line is out, then the summary's count must be the lines printed, not the
        // headings decoded after the stop that the disabled proxy never took.
        let lines = (0..<200_000).map { index -> String in
            let body = "GPHDT,\(index % 360).0,T"
            let checksum = body.utf8.reduce(UInt8(0), ^)
            return "$\(body)*" + String(format: "%02X", checksum)
        }
        let path = try temporaryFile(lines.joined(separator: "\r\n") + "\r\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let daemon = DaemonProcess(arguments: ["--source", "replay:\(path)", "--speed", "max", "--format", "json"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(60)) { output, _ in !output.isEmpty })
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(30)))
        #expect(daemon.terminationStatus == 0, "\(daemon.errors)")
        let summary = try #require(daemon.errors.split(separator: "\n").first { $0.contains("headingd: replay of \(path): ") })
        let countText: Substring = summary.split(separator: ": ").last?.split(separator: " ").first ?? ""
        let counted = try #require(Int(countText), "\(summary)")
        #expect(counted < 200_000, "stopped before the end: \(summary)")
        // At most one batch (256) apart: the proxy marks itself disabled a moment before it stops
        // the replay, and a batch handed over in between is counted but not taken. (Before the
        // replay looked for the stop at each batch, up to 16 batches were: 3,583 in one run.)
        let printed = daemon.outputLines.count
        #expect(printed <= counted && counted - printed <= 256, "\(printed) printed; \(summary)")
    }

    @Test func outOfRangeHeadingsAreNamedFileLineReasonAndNeverPrinted() async throws {
        let path = Self.gpsdLog("tnt-revolution.log")
        let daemon = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max", "--format", "json"])
        #expect(daemon.terminationStatus == 0)
        #expect(daemon.outputLines.isEmpty)
        let faults = daemon.errors.split(separator: "\n").filter { $0.contains("outOfRange") }
        #expect(faults.count == 50)
        #expect(faults.allSatisfy { $0.contains("\(path):") && $0.contains("is outside 0–360°") })
    }

    @Test func aBadLineIsNamedAndTheLinesAroundItArePrinted() async throws {
        let path = try temporaryFile("$GPHDT,10.0,T\n$GPHDT,11.0,T*00\n$GPHDT,12.0,T\n$GPHDT,1e999,T\n$GPHDT,13.0,T\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let daemon = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max", "--format", "json"])
        #expect(daemon.terminationStatus == 0)
        #expect(try trueHeadings(daemon) == [10.0, 12.0, 13.0])
        #expect(daemon.errors.contains("\(path):2: checksum mismatch"), "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains("\(path):4: "), "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains("3 headings, 2 lines skipped, 2 faults (5 lines read)"))
    }

    @Test func strictMakesASkippedLineExitStatus65AfterTheReplay() async throws {
        let path = try temporaryFile("$GPHDT,10.0,T\n$GPHDT,11.0,T*00\n$GPHDT,12.0,T\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let daemon = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max", "--format", "json", "--strict"])
        #expect(daemon.terminationStatus == 65)
        #expect(try trueHeadings(daemon) == [10.0, 12.0])
        #expect(daemon.errors.contains("--strict: 1 of the lines of \(path) were skipped"))

        let clean = try await DaemonProcess.run(["--source", "replay:\(Self.gpsdLog("hemi.log"))", "--speed", "max", "--strict"])
        #expect(clean.terminationStatus == 0)
    }

    @Test func aMissingFileExits66NamingThePath() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-no-such-\(UUID().uuidString).log").path
        let daemon = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max"])
        #expect(daemon.exitedNormally)
        #expect(daemon.terminationStatus == 66)
        #expect(daemon.errors.contains("cannot read \(path): No such file or directory"))
        #expect(daemon.output.isEmpty)
    }

    @Test func aBinaryRecordingIsReportedOnceAsUnsupportedAndStrictMakesIt65() async throws {
        let path = Self.gpsdLog("sirfstarv.log")
        let daemon = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max"])
        #expect(daemon.terminationStatus == 0)
        let faults = daemon.errors.split(separator: "\n").filter { $0.contains("headingd: fault:") }
        #expect(faults.count == 1)
        #expect(faults.first?.contains("unsupportedInput") == true)
        #expect(faults.first?.contains("SiRF") == true)

        let strict = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max", "--strict"])
        #expect(strict.terminationStatus == 65)
        #expect(strict.errors.contains("is in an unsupported format"))
    }

    @Test func countEndsAReplayEarly() async throws {
        let daemon = try await DaemonProcess.run(["--source", "replay:\(Self.gpsdLog("rst39.log"))", "--speed", "max", "--count", "7"])
        #expect(daemon.terminationStatus == 0)
        #expect(daemon.outputLines.count == 7)
    }

    @Test func loopRepeatsTheRecordingUntilCount() async throws {
        let path = Self.gpsdLog("hemi.log")
        let daemon = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max", "--loop", "--count", "10", "--format", "json"])
        #expect(daemon.terminationStatus == 0)
        #expect(try trueHeadings(daemon) == [274.07, 274.04, 274.12, 274.11, 274.07, 274.04, 274.12, 274.11, 274.07, 274.04])
    }

    @Test func recordedSpeedKeepsTheRecordingsTimes() async throws {
        // hemi.log's four headings span one recorded second (19:40:58 to 19:40:59); ×100 would take
        // 10 ms, so only the order and the printed times are checked here: pacing itself is
        // measured on a test clock in HeadingKit's tests.
        let daemon = try await DaemonProcess.run(["--source", "replay:\(Self.gpsdLog("hemi.log"))", "--speed", "100", "--format", "json"])
        #expect(daemon.terminationStatus == 0)
        let times = try daemon.outputLines.map { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["timestamp"] as? String
        }
        #expect(times == ["2018-09-07T19:40:58.000Z", "2018-09-07T19:40:58.000Z", "2018-09-07T19:40:59.000Z", "2018-09-07T19:40:59.000Z"])
    }

    @Test(arguments: [
        (["--source", "replay:"], "replay:PATH"),
        (["--source", "replay:x", "--speed", "0"], "option --speed: key 'replay.speed'"),
        (["--source", "replay:x", "--speed", "fast"], "option --speed: key 'replay.speed'"),
    ])
    func badReplayArgumentsAreRefused(arguments: [String], message: String) async throws {
        let daemon = try await DaemonProcess.run(arguments)
        #expect(daemon.terminationStatus == 78)  // EX_CONFIG, as the same value in a file or the environment
        #expect(daemon.errors.contains(message), "stderr was: \(daemon.errors)")
    }
}

/// `--require-checksum`: a complete sentence without a checksum is refused only when asked.
@Suite(.processSlot)
struct HeadingdChecksumTests {
    @Test func sentencesWithoutAChecksumAreRefusedOnlyWhenRequired() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-checksum-\(UUID().uuidString).nmea").path
        try Data("$GPHDT,10.0,T*04\n$GPHDT,11.0,T\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lenient = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max", "--format", "json"])
        #expect(lenient.outputLines.count == 2)
        let strict = try await DaemonProcess.run(["--source", "replay:\(path)", "--speed", "max", "--format", "json", "--require-checksum"])
        #expect(strict.outputLines.count == 1)
        #expect(strict.errors.contains("\(path):2: sentence has no checksum, and checksums are required"))
        let byEnvironment = try await DaemonProcess.run(
            ["--source", "replay:\(path)", "--speed", "max"], environment: ["HEADINGD_REQUIRE_CHECKSUM": "true"]
        )
        #expect(byEnvironment.outputLines.count == 1)
    }
}
