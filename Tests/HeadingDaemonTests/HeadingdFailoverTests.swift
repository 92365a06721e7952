// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// `headingd --source replay:… --source simulation`: several sources end to end, the real binary.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdFailoverTests {
    /// 10 Hz true headings for 3 s, a 4 s gap, then 4 s more.
    static let gapRecording = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/failover-gap.nmea").path

    @Test func whenTheReplayStopsHeadingsFailOverToTheSimulationAndBackAfterTheHold() async throws {
        let daemon = DaemonProcess(arguments: [
            "--source", "replay:\(Self.gapRecording)", "--source", "simulation?offset=0.5",
            "--stale-after", "1", "--fail-back-hold", "1", "--speed", "2", "--format", "json", "--disagreement", "0",
            "--dropout-interval", "0",
        ])
        try daemon.start()
        // The replay's end: stale again, and the simulation takes over for good.
        let replay = "replay:\(Self.gapRecording)"
        let failovers = "failover: headings now from simulation instead of \(replay)"
        #expect(
            await daemon.wait(timeout: .seconds(40)) { errors in errors.components(separatedBy: failovers).count - 1 >= 2 }
        )
        // … and the simulation's headings follow on stdout.
        #expect(
            await daemon.wait { output, _ in
                output.split(separator: "\n").last?.contains(#""source":"simulation""#) == true
            }
        )
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit())
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors)")

        // stderr tells the story in order: stale, failover, recovered, fail-back, stale, failover.
        let story = daemon.errors.split(separator: "\n").compactMap { line -> String? in
            for (marker, name) in [
                (": stale: ", "stale"), ("failover: ", "failover"), (": recovered: ", "recovered"), ("fail-back: ", "fail-back"),
            ] where line.contains(marker) { return name }
            return nil
        }
        #expect(story == ["stale", "failover", "recovered", "fail-back", "stale", "failover"], "stderr: \(daemon.errors)")

        // stdout: the replay's headings, the simulation's (with its offset) through the gap, the replay's again, then the simulation's.
        var runs: [String] = []
        for line in daemon.outputLines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let source = try #require(object["source"] as? String)
            if runs.last != source { runs.append(source) }
        }
        // Starting up, the simulation may deliver a few headings before the replay's first takes over.
        if runs.first == "simulation" { runs.removeFirst() }
        #expect(runs == [replay, "simulation", replay, "simulation"])
    }

    @Test func badSourceParametersAndSettingsAreRefusedWithTheirReason() async throws {
        for (arguments, reason) in [
            (["--source", "simulation?offset=400"], "offset must be between -180 and 180 degrees"),
            (["--source", "simulation?tilt=3"], "unknown source parameter 'tilt'"),
            (["--source", "simulation?deviation=0:1,0:2"], "heading 0.0° appears twice"),
            (["--stale-after", "0"], "option --stale-after: key 'stale_after': must be between 0.01 and 3600 seconds"),
            (["--position", "95,10"], "option --position: key 'position': must be LATITUDE,LONGITUDE[,ALTITUDE]"),
        ] {
            let daemon = try await DaemonProcess.run(arguments)
            #expect(daemon.terminationStatus == 78, "\(arguments): \(daemon.errors)")  // EX_CONFIG, from every layer
            #expect(daemon.errors.contains(reason), "\(arguments): \(daemon.errors)")
        }
    }

    @Test func aMagneticOnlyRecordingGetsTheModelsVariationAtTheConfiguredPosition() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-hdm-\(UUID().uuidString).nmea").path
        try Data("$HCHDM,100.0,M*28\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let daemon = try await DaemonProcess.run([
            "--source", "replay:\(path)", "--speed", "max", "--format", "json", "--position", "54.32,10.14",
        ])
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors)")
        let line = try #require(daemon.outputLines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["variationOrigin"] as? String == "model")
        let variation = try #require(object["magneticVariation"] as? Double)
        #expect(variation > 3 && variation < 7, "Kiel's declination is about +4.5°, not \(variation)")
        #expect(abs(try #require(object["trueHeading"] as? Double) - (100 + variation)) < 1e-6)
    }
}
