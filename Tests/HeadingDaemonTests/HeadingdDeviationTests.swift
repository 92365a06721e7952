// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// `headingd deviation` (issue 40) through the real binary, on a recorded swing: a gyro and an
/// uncorrected fluxgate on one NMEA 2000 bus (`Tests/Fixtures/deviation/make-swing` made it: the
/// fluxgate's deviation is a known five-coefficient curve; a circle to starboard, one to port).
@Suite(.processSlot, .timeLimit(.minutes(5)))
struct HeadingdDeviationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/deviation")
    static let swing = fixtures.appendingPathComponent("swing.candump.log").path
    /// The curve the fixture was made with: A, B, C, D, E.
    static let known = (a: 0.8, b: 4.2, c: -2.5, d: 1.1, e: -0.7)

    static func deviation(at theta: Double) -> Double {
        let radians = theta * .pi / 180
        return known.a + known.b * sin(radians) + known.c * cos(radians) + known.d * sin(2 * radians) + known.e * cos(2 * radians)
    }

    /// Each heading's time (seconds since 1970) and magnetic heading, from headingd's JSON lines.
    static func magneticHeadings(_ daemon: DaemonProcess) -> [(time: Double, heading: Double)] { magneticHeadings(lines: daemon.outputLines) }

    static func magneticHeadings(lines: [String]) -> [(time: Double, heading: Double)] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let heading = object["magneticHeading"] as? Double, let stamp = object["timestamp"] as? String,
                let date = formatter.date(from: stamp)
            else { return nil }
            return (date.timeIntervalSince1970, heading)
        }
    }

    static func signed(_ degrees: Double) -> Double {
        let folded = degrees.truncatingRemainder(dividingBy: 360)
        return folded > 180 ? folded - 360 : folded < -180 ? folded + 360 : folded
    }

    /// The RMS difference between the fluxgate's headings and the gyro's magnetic heading at the
    /// same moment (the mean of the gyro's either side: it is heard 0.1 s before and after).
    static func rms(_ fluxgate: [(time: Double, heading: Double)], against gyro: [(time: Double, heading: Double)]) -> Double {
        var sum = 0.0, count = 0
        var index = 0
        for sample in fluxgate {
            while index + 1 < gyro.count, gyro[index + 1].time < sample.time { index += 1 }
            guard index + 1 < gyro.count, gyro[index].time < sample.time, gyro[index + 1].time > sample.time else { continue }
            let between = gyro[index].heading + signed(gyro[index + 1].heading - gyro[index].heading) / 2
            let error = signed(sample.heading - between)
            sum += error * error
            count += 1
        }
        return count == 0 ? .infinity : (sum / Double(count)).squareRoot()
    }

    @Test func aRecordedSwingGivesTheCardAndItsParameterCorrectsTheFluxgate() async throws {
        let run = try await DaemonProcess.run([
            "deviation", "--json", "--source", "replay:\(Self.swing)?device=2", "--reference", "replay:\(Self.swing)?device=1",
        ])
        #expect(run.terminationStatus == 0, "stderr: \(run.errors)")
        let card = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "stdout: \(run.output)")
        let coefficients = try #require(card["coefficients"] as? [String: Double])
        let known = ["A": Self.known.a, "B": Self.known.b, "C": Self.known.c, "D": Self.known.d, "E": Self.known.e]
        for (name, value) in known { #expect(abs((coefficients[name] ?? .nan) - value) <= 0.3, "\(name): \(coefficients)") }
        let points = try #require(card["card"] as? [[String: Double]])
        #expect(points.count == 24)
        for point in points {
            #expect(abs((point["deviation"] ?? .nan) - Self.deviation(at: point["heading"] ?? .nan)) <= 0.5, "\(point)")
        }
        #expect((card["coverage"] as? Double) == 1 && ((card["residual"] as? Double) ?? 9) < 1)
        let parameter = try #require(card["parameter"] as? String)
        #expect(parameter.hasPrefix("deviation=0:"))

        // The parameter applied: the fluxgate within 1° RMS of the gyro; without it, far off.
        let gyro = DaemonProcess(arguments: ["--source", "replay:\(Self.swing)?device=1", "--speed", "max", "--format", "json"])
        let corrected = DaemonProcess(arguments: ["--source", "replay:\(Self.swing)?device=2&\(parameter)", "--speed", "max", "--format", "json"])
        let raw = DaemonProcess(arguments: ["--source", "replay:\(Self.swing)?device=2", "--speed", "max", "--format", "json"])
        for daemon in [gyro, corrected, raw] { try daemon.start() }
        for daemon in [gyro, corrected, raw] { #expect(await daemon.waitForExit(timeout: .seconds(30)), "stderr: \(daemon.errors)") }
        let reference = Self.magneticHeadings(gyro)
        #expect(reference.count == 2100)
        let after = Self.rms(Self.magneticHeadings(corrected), against: reference)
        let before = Self.rms(Self.magneticHeadings(raw), against: reference)
        #expect(after <= 1, "corrected: \(after)° RMS")
        #expect(before >= 3, "uncorrected: \(before)° RMS")
    }

    @Test func tooLittleOfTheCircleIsRefusedWithWhatIsMissing() async throws {
        let half = Self.fixtures.appendingPathComponent("half-swing.candump.log").path
        let run = try await DaemonProcess.run(["deviation", "--source", "replay:\(half)?device=2", "--reference", "replay:\(half)?device=1"])
        #expect(run.terminationStatus == 65)
        #expect(run.errors.contains("the compass headings 210–15° were not covered"), "stderr: \(run.errors)")
        #expect(run.errors.contains("turn the boat through a full circle"))
    }

    @Test func aReferenceWithoutTrueHeadingOrVariationIsSaid() async throws {
        // The fluxgate as its own reference: magnetic only, so no pair; the refusal says why.
        let run = try await DaemonProcess.run(["deviation", "--source", "replay:\(Self.swing)?device=2", "--reference", "replay:\(Self.swing)?device=2"])
        #expect(run.terminationStatus == 65)
        #expect(run.errors.contains("2100 reference headings without a true heading"), "stderr: \(run.errors)")
    }

    @Test func learnedInTheDaemonTheCardIsAppliedKeptAndShown() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("deviation-learn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let compass = "replay:\(Self.swing)?device=2&deviation=learn"
        let sources = ["--source", compass, "--source", "replay:\(Self.swing)?device=1"]
        let learning = DaemonProcess(arguments: sources + ["--speed", "max", "--format", "json"], environment: ["STATE_DIRECTORY": state.path])
        try learning.start()
        #expect(await learning.waitForExit(timeout: .seconds(60)))
        #expect(learning.terminationStatus == 0, "stderr: \(learning.errors)")
        #expect(learning.errors.contains("deviation card learned against replay:\(Self.swing)?device=1"), "stderr: \(learning.errors)")
        #expect(learning.errors.contains("applied; deviation=0:"))
        let files = try FileManager.default.contentsOfDirectory(atPath: state.path).filter { $0.hasPrefix("deviation-") }
        #expect(files.count == 1)
        // Once applied, the compass's headings carry the card and follow the gyro within 1° RMS.
        let gyro = DaemonProcess(arguments: ["--source", "replay:\(Self.swing)?device=1", "--speed", "max", "--format", "json"])
        try gyro.start()
        #expect(await gyro.waitForExit(timeout: .seconds(30)))
        let corrected = learning.outputLines.filter { $0.contains(#""deviation":"#) }
        #expect(corrected.count >= 500, "\(corrected.count) headings corrected")
        let correctedHeadings = Self.magneticHeadings(lines: corrected)
        #expect(Self.rms(correctedHeadings, against: Self.magneticHeadings(gyro)) <= 1)

        // Started again: the card kept is applied at once, and shown in the status report.
        let port = GPSFake.freePort()
        let again = DaemonProcess(
            arguments: sources + ["--speed", "1", "--format", "json", "--status", "--http-listen", "127.0.0.1:\(port)"],
            environment: ["STATE_DIRECTORY": state.path]
        )
        try again.start()
        // (At recorded speed the gyro's first heading comes 0.1 s before the compass's: headings
        // come from it until the compass, first in order, has delivered for the fail-back hold.)
        #expect(await again.wait(timeout: .seconds(20)) { output, _ in output.contains("device=2") }, "stderr: \(again.errors)")
        #expect(again.errors.contains("the deviation card learned"), "stderr: \(again.errors)")
        let firstOfCompass = again.outputLines.first { $0.contains("device=2") }
        #expect(firstOfCompass?.contains(#""deviation":"#) == true, "\(firstOfCompass ?? "")")
        let status = try await HeadingdMetricsTests.get("http://127.0.0.1:\(port)/status.json").body
        let report = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
        let first = (report["sources"] as? [[String: Any]])?.first
        #expect((first?["deviation"] as? String)?.hasPrefix("applied (kept from") == true, "\(status)")
        again.send(SIGTERM)
        #expect(await again.waitForExit(timeout: .seconds(5)))

        // A damaged card is set aside, never a reason to stop: learned afresh.
        let kept = state.appendingPathComponent(try #require(files.first)).path
        try Data("{\"source\": 7".utf8).write(to: URL(fileURLWithPath: kept))
        let damaged = DaemonProcess(arguments: sources + ["--speed", "max", "--format", "json"], environment: ["STATE_DIRECTORY": state.path])
        try damaged.start()
        #expect(await damaged.waitForExit(timeout: .seconds(60)))
        #expect(damaged.terminationStatus == 0)
        #expect(damaged.errors.contains("holds no deviation card (damaged?): moved aside to"), "stderr: \(damaged.errors)")
        #expect(damaged.errors.contains("deviation card learned against"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).contains { $0.contains(".damaged-") })
    }
}
