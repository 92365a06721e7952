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
    static func magneticHeadings(_ daemon: DaemonProcess) -> [(time: Double, heading: Double)] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return daemon.outputLines.compactMap { line in
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
}
