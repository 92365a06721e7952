// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
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
        // At 20 times the recording's pace, not flat out: two flat-out replays race each other on
        // two threads, and when the compass's runs ahead, the card (fitted once the reference has
        // covered the circle) comes when few compass headings are left to carry it (53 of 2100 in
        // a loaded run). Paced, the two keep the recording's moments together.
        let learning = DaemonProcess(arguments: sources + ["--speed", "20", "--format", "json"], environment: ["STATE_DIRECTORY": state.path])
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

    /// A swing at 1 Hz in NMEA 0183, the commonest rate: a gyro's `HEHDT` and an uncorrected
    /// fluxgate's `HCHDG` each second, stamped by `RMC`, turning at a steady 3°/s (two minutes a
    /// circle, one each way), the gyro with 0.1° of noise. The magnetic reference is the gyro's true
    /// heading less the World Magnetic Model's variation at `--position`.
    static func oneHertzSwing(circlesEachWay: Int = 1) throws -> String {
        let (latitude, longitude) = (50.78, -1.30)
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour) = (2026, 11, 28, 12)
        components.timeZone = TimeZone(identifier: "UTC")
        let start = try #require(Calendar(identifier: .gregorian).date(from: components))
        let variation = WorldMagneticModel.wmm2025.declination(latitude: latitude, longitude: longitude, at: start)
        var generator = SeededRandomNumberGenerator(seed: 6)
        var text = ""
        let half = 120 * circlesEachWay
        for second in 0..<(2 * half) {
            let magnetic = second < half ? 3.0 * Double(second) : 360 - 3.0 * Double(second - half) + 40
            var theta = magnetic
            for _ in 0..<20 { theta = magnetic - deviation(at: theta) }
            let truth = magnetic + variation + Double.random(in: -0.1...0.1, using: &generator)
            let time = start.addingTimeInterval(Double(second))
            let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: time)
            let hhmmss = String(format: "%02d%02d%02d.00", parts.hour!, parts.minute!, parts.second!)
            func angle(_ value: Double) -> String { String(format: "%.1f", (value.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)) }
            text += Sentence.make("GPRMC,\(hhmmss),A,5046.80,N,00118.00,W,5.0,\(angle(truth)),281126,,")
            text += Sentence.make("HEHDT,\(angle(truth)),T")
            text += Sentence.make("HCHDG,\(angle(theta)),,,,")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("swing-1hz-\(UUID().uuidString).nmea").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Hardening 5, item 6, through `headingd deviation`: before, "no pair of headings to fit".
    @Test func aOneHertzNMEA0183SwingGivesTheCard() async throws {
        let file = try Self.oneHertzSwing()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try await DaemonProcess.run([
            "deviation", "--json", "--source", "replay:\(file)?talker=HC", "--reference", "replay:\(file)?talker=HE", "--position", "50.78,-1.30",
        ])
        #expect(run.terminationStatus == 0, "stderr: \(run.errors)")
        let card = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)")
        #expect((card["pairs"] as? Int ?? 0) >= 100, "\(card)")  // of 240: at the 3°/s limit, noise puts half over it
        for entry in card["card"] as? [[String: Double]] ?? [] {
            let heading = entry["heading"] ?? 0, deviation = entry["deviation"] ?? 99
            #expect(abs(deviation - Self.deviation(at: heading)) <= 0.5, "at \(heading)°: \(deviation) against \(Self.deviation(at: heading))")
        }
    }

    /// Item 6 in the daemon (`deviation=learn`), and item 7: a kept card of 1 GB is not read whole
    /// (before: 1.08 GB resident and 3 s at every start, then ignored without a word) but set aside.
    @Test func aOneHertzSwingIsLearnedInTheDaemonAndAHugeKeptCardIsSetAside() async throws {
        // Two circles each way: the learner fits every 300 headings of the two sources together, and
        // flat out one replay may end before the other starts.
        let file = try Self.oneHertzSwing(circlesEachWay: 2)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("deviation-1hz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let sources = ["--source", "replay:\(file)?talker=HC&deviation=learn", "--source", "replay:\(file)?talker=HE", "--position", "50.78,-1.30"]
        let learning = try await DaemonProcess.run(sources + ["--speed", "max", "--format", "json"], environment: ["STATE_DIRECTORY": state.path])
        #expect(learning.terminationStatus == 0, "stderr: \(learning.errors)")
        #expect(learning.errors.contains("deviation card learned against replay:\(file)?talker=HE"), "stderr: \(learning.errors)")
        let kept = try #require(try FileManager.default.contentsOfDirectory(atPath: state.path).first { $0.hasPrefix("deviation-") })
        // A sparse gigabyte in its place.
        let path = state.appendingPathComponent(kept).path
        #expect(truncate(path, 1 << 30) == 0)
        let started = ContinuousClock.now
        let again = try await DaemonProcess.run(sources + ["--speed", "max", "--format", "json"], environment: ["STATE_DIRECTORY": state.path])
        #expect(again.terminationStatus == 0, "stderr: \(again.errors)")
        #expect(again.errors.contains("is larger than a deviation card (over 65536 bytes): moved aside to"), "stderr: \(again.errors)")
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).contains { $0.contains(".damaged-") })
    }
}
