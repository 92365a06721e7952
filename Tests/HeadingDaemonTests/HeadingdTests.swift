// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// headingd end to end: the real binary, its output parsed as a consumer would.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdTests {
    private func jsonObjects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(line)")
        }
    }

    /// `--version` prints the version the Debian package's changelog states (Signal K's discovery
    /// and the HTTP Server header say it too).
    @Test func theVersionIsTheChangelogs() async throws {
        let changelog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("debian/changelog")
        let first = try String(contentsOf: changelog, encoding: .utf8).split(separator: "\n").first ?? ""
        let version = try #require(first.split(separator: "(").dropFirst().first?.split(separator: ")").first)
        let daemon = try await DaemonProcess.run(["--version"])
        #expect(daemon.terminationStatus == 0)
        #expect(daemon.output.trimmingCharacters(in: .whitespacesAndNewlines) == String(version))
    }

    @Test func countFiftyGivesFiftyParseableJSONLinesOnTheCircle() async throws {
        let daemon = try await DaemonProcess.run(["--count", "50", "--format", "json", "--rate", "1000"])
        #expect(daemon.exitedNormally)
        #expect(daemon.terminationStatus == 0)
        let objects = try jsonObjects(daemon.outputLines)
        #expect(objects.count == 50)
        for object in objects {
            let heading = try #require(object["trueHeading"] as? Double)
            #expect(heading >= 0 && heading < 360)
            let magnetic = try #require(object["magneticHeading"] as? Double)
            #expect(magnetic >= 0 && magnetic < 360)
            #expect(object["accuracy"] is Double)
            #expect(object["source"] as? String == "simulation")
            let timestamp = try #require(object["timestamp"] as? String)
            #expect((try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(timestamp)) != nil)
        }
    }

    @Test func theSameSeedGivesTheSameHeadings() async throws {
        let arguments = ["--count", "100", "--format", "json", "--seed", "7", "--rate", "1000"]
        let first = try await DaemonProcess.run(arguments)
        let second = try await DaemonProcess.run(arguments)
        let headings = { (daemon: DaemonProcess) in
            try self.jsonObjects(daemon.outputLines).map { $0["trueHeading"] as? Double }
        }
        #expect(try headings(first).count == 100)
        #expect(try headings(first) == headings(second))
        let other = try await DaemonProcess.run(["--count", "100", "--format", "json", "--seed", "8", "--rate", "1000"])
        #expect(try headings(first) != headings(other))
    }

    @Test func textFormatPrintsOneReadableLinePerHeading() async throws {
        let daemon = try await DaemonProcess.run(["--count", "3", "--rate", "1000"])
        #expect(daemon.terminationStatus == 0)
        #expect(daemon.outputLines.count == 3)
        for line in daemon.outputLines {
            #expect(line.contains(" simulation true "))
            #expect(line.contains("°"))
        }
        #expect(daemon.errors.contains("headingd: authorization: authorized"))
    }

    @Test func faultsGoToStandardErrorOneLineEachAndHeadingsResume() async throws {
        // At 2000 Hz, dropouts of 0.2 s every 0.5 s: 600 headings, a dropout, 600, a dropout, 300.
        let daemon = try await DaemonProcess.run([
            "--count", "1500", "--format", "json", "--rate", "2000",
            "--dropout-interval", "0.5", "--dropout-duration", "0.2",
        ])
        #expect(daemon.terminationStatus == 0)
        let faults = daemon.errors.split(separator: "\n").filter { $0.contains("fault") }
        #expect(faults.count == 2)
        #expect(faults.allSatisfy { $0.hasPrefix("headingd: fault: simulation: deviceLost: ") })
        // The headings around each dropout are all there: 1500 lines, with two 0.2 s gaps.
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let times = try jsonObjects(daemon.outputLines).map { try style.parse($0["timestamp"] as! String) }
        #expect(times.count == 1500)
        let gaps = zip(times, times.dropFirst()).filter { $1.timeIntervalSince($0) > 0.1 }
        #expect(gaps.count == 2)
    }

    @Test func filterHoldsBackSmallChanges() async throws {
        func changes(_ arguments: [String]) async throws -> [Double] {
            let daemon = try await DaemonProcess.run(["--count", "40", "--format", "json", "--rate", "1000"] + arguments)
            #expect(daemon.terminationStatus == 0)
            let headings = try jsonObjects(daemon.outputLines).compactMap { $0["trueHeading"] as? Double }
            #expect(headings.count == 40)
            return zip(headings, headings.dropFirst()).map { previous, next in
                let change = abs(next - previous).truncatingRemainder(dividingBy: 360)
                return change > 180 ? 360 - change : change
            }
        }
        // Unfiltered, the simulation moves less than 0.5° between most ticks; filtered, never.
        #expect(try await changes([]).contains { $0 < 0.5 })
        #expect(try await changes(["--filter", "0.5"]).allSatisfy { $0 >= 0.5 - 1e-9 })
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalEndsACleanShutdownWithExitZero(signal: Int32) async throws {
        let daemon = DaemonProcess(arguments: [])
        try daemon.start()
        // Running on the embedded default: wait for its first heading, then signal.
        #expect(await daemon.wait { output, _ in output.contains("\n") })
        let signalled = ContinuousClock.now
        daemon.send(signal)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        let shutdown = ContinuousClock.now - signalled
        #expect(daemon.exitedNormally)
        #expect(daemon.terminationStatus == 0)
        #expect(daemon.outputLines.count >= 1)
        print("headingd shut down \(shutdown) after signal \(signal)")
    }

    @Test(arguments: [
        (["--count", "0"], 78, "option --count: must be at least 1, not 0"),
        (["--count", "-5"], 78, "option --count: must be at least 1, not -5"),
        (["--position", "-33.86,151.21,-7000000"], 78, "option --position: key 'position': must be LATITUDE,LONGITUDE[,ALTITUDE]"),
        // A value of the wrong type is the schema's, as in a file or the environment.
        (["--rate", "fast"], 78, "option --rate: key 'simulation.rate': 'fast' is not a number"),
        (["--rate"], 64, "Missing value for '--rate <hz>'"),
        (["--verbose=false"], 64, "--verbose is a flag: it takes no value"),
        (["--filter", "200"], 78, "option --filter: key 'filter': must be between 0 and 180"),
        (["--rate", "0"], 78, "option --rate: key 'simulation.rate': must be above 0"),
        (["--rate", "1e-20"], 78, "option --rate: key 'simulation.rate': must be above 0"),
        (["--dropout-interval", "2", "--dropout-duration", "3"], 78, "key 'simulation.dropout_interval': must be 0"),
        (["--source", "carrier-pigeon"], 78, "option --source: key 'source': 'carrier-pigeon' is not a source: must be 'simulation'"),
        (["--format", "xml"], 78, "option --format: key 'format': must be 'text' or 'json'"),
        (["--position", "54,10,-7000000"], 78, "option --position: key 'position': must be LATITUDE,LONGITUDE[,ALTITUDE]"),
        (["--position", "91,10"], 78, "option --position: key 'position': must be LATITUDE,LONGITUDE[,ALTITUDE]"),
    ])
    func badArgumentsAreRefusedWithAClearMessage(arguments: [String], status: Int32, message: String) async throws {
        let daemon = try await DaemonProcess.run(arguments)
        #expect(daemon.terminationStatus == status)
        #expect(daemon.errors.contains(message), "stderr was: \(daemon.errors)")
        #expect(daemon.output.isEmpty)
    }

    @Test func helpTellsTheOptionsAndTheDefault() async throws {
        let daemon = try await DaemonProcess.run(["--help"])
        #expect(daemon.terminationStatus == 0)
        for option in [
            "--source", "--count", "--format", "--filter", "--rate", "--seed", "--dropout-interval", "--dropout-duration",
            "--speed", "--loop", "--strict", "--min-course-speed", "gpsd://HOST:PORT", "--stale-after", "--fail-back-hold",
            "--disagreement", "--disagreement-hold", "--position", "variationOrigin",
        ] {
            #expect(daemon.output.contains(option))
        }
        #expect(daemon.output.contains("simulation"))
    }
}

/// Standard output that cannot be written: an error and a non-zero exit, never a silent success.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdOutputFailureTests {
    @Test(arguments: [
        ["--count", "100", "--rate", "1000"],
        ["--source", "replay:\(HeadingdReplayTests.gpsdLog("rst39.log"))", "--speed", "max"],
    ])
    func aFullStandardOutputExits74NamingTheReason(arguments: [String]) async throws {
        // The shell opens /dev/full as headingd's standard output, as a full disk would refuse it.
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let run = try await Command.run("/bin/sh", ["-c", "exec '\(DaemonProcess.executableURL.path)' \(quoted) > /dev/full"])
        #expect(run.status == 74, "stderr: \(run.errors)")
        #expect(run.errors.contains("headingd: cannot write headings to standard output: No space left on device"))
    }
}
