// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitTesting
import Synchronization
import Testing

@testable import HeadingDaemon

/// A fake sysfs tree whose magnetometer (HMC5883L-like) and accelerometer a thread keeps turning,
/// as a person turns a sensor during `headingd calibrate`.
final class TurningIIOTree: Sendable {
    let root: URL
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    /// The six `*_raw` files, held open (magnetometer X, Y, Z, then accelerometer X, Y, Z).
    private let descriptors: [Int32]

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-calibrate-\(UUID().uuidString)")
        for (device, name) in [("iio:device0", "hmc5883l"), ("iio:device1", "lis3dh")] {
            let directory = root.appendingPathComponent(device)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data("\(name)\n".utf8).write(to: directory.appendingPathComponent("name"))
        }
        try Data("0.001\n".utf8).write(to: root.appendingPathComponent("iio:device0/in_magn_scale"))  // 0.1 µT a count
        try Data("0.001\n".utf8).write(to: root.appendingPathComponent("iio:device1/in_accel_scale"))
        let root = root
        descriptors = [("iio:device0", "magn"), ("iio:device1", "accel")].flatMap { device, type in
            ["x", "y", "z"].map { axis in open(root.appendingPathComponent("\(device)/in_\(type)_\(axis)_raw").path, O_WRONLY | O_CREAT, 0o644) }
        }
        guard descriptors.allSatisfy({ $0 >= 0 }) else { throw POSIXError(.EIO) }
    }

    /// Writes one reading (µT, m/s²) in place, each value padded to one width and written by one
    /// `pwrite`: the source holds the files open and must never find one empty, as sysfs never is.
    /// The six writes follow each other as closely as they can; a reading the source takes across
    /// them is torn (axes from two attitudes), as a real sensor's is across a fast turn, and the
    /// calibrator sets it aside.
    func write(field: Vector3, acceleration: Vector3) {
        let values = [field.x / 0.1, field.y / 0.1, field.z / 0.1, acceleration.x / 0.001, acceleration.y / 0.001, acceleration.z / 0.001]
        let texts = values.map { value in
            let number = String(Int(value.rounded()))
            return String(repeating: " ", count: max(0, 11 - number.count)) + number + "\n"
        }
        for (descriptor, text) in zip(descriptors, texts) {
            _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        }
    }

    /// Turns `sensor` to a new random attitude every 5 ms on a thread of its own, until ``stop()``;
    /// `still` keeps it at one attitude, `boat` turns it about the vertical only (heeled 8° to one side, then the other).
    func turn(_ sensor: SimulatedMagnetometer, still: Bool = false, boat: Bool = false) {
        let reading = Mutex(sensor)
        write(field: reading.withLock { $0.reading(heading: 30, pitch: 0, roll: 0).field }, acceleration: Vector3(x: 0, y: 0, z: 9.80665))
        Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                let (field, acceleration) = reading.withLock { sensor in
                    let heading = sensor.uniform(0...360)
                    let attitude =
                        still ? (heading: 30.0, pitch: 0.0, roll: 0.0)
                        : boat ? (heading: heading, pitch: sensor.uniform(-2...2), roll: sensor.uniform(0...1) < 0.5 ? -8.0 : 8.0) : sensor.randomAttitude()
                    return sensor.reading(heading: attitude.heading, pitch: attitude.pitch, roll: attitude.roll)
                }
                write(field: field, acceleration: acceleration)
                Thread.sleep(forTimeInterval: 0.005)
            }
            finished.store(true, ordering: .relaxed)
        }.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        while !finished.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.005) }
        for descriptor in descriptors { close(descriptor) }
        try? FileManager.default.removeItem(at: root)
    }
}

@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdCalibrateTests {
    static let solent = WorldMagneticModel.wmm2025.field(latitude: 50.78, longitude: -1.30, at: Date())

    static func distortedSensor() -> SimulatedMagnetometer {
        SimulatedMagnetometer(
            field: solent, hardIron: Vector3(x: 20, y: -35, z: 15),
            softIron: Matrix3(Vector3(x: 1.1, y: 0.04, z: 0), Vector3(x: 0.04, y: 0.93, z: -0.03), Vector3(x: 0, y: -0.03, z: 1.02)),
            noise: 0.15, accelerationNoise: 0.02, seed: 37
        )
    }

    @Test func turnedEveryWayItFitsWritesAndTheSourceAppliesIt() async throws {
        let tree = try TurningIIOTree()
        tree.turn(Self.distortedSensor())
        defer { tree.stop() }
        let output = tree.root.appendingPathComponent("state/calibration.json").path
        let calibrate = try await DaemonProcess.run(
            ["calibrate", "iio:?root=\(tree.root.path)&rate=100", "--position", "50.78,-1.30", "--output", output], timeout: .seconds(120))
        #expect(calibrate.terminationStatus == 0, "\(calibrate.output)\n\(calibrate.errors)")
        #expect(calibrate.output.contains("The World Magnetic Model here: field 48.9 µT"), "\(calibrate.output)")
        #expect(calibrate.output.contains("Calibrated (ellipsoid"), "\(calibrate.output)")
        #expect(calibrate.output.contains("Written to \(output)."), "\(calibrate.output)")
        let calibration = try MagnetometerCalibration.read(Data(contentsOf: URL(fileURLWithPath: output)))
        #expect((calibration.offset - Vector3(x: 20, y: -35, z: 15)).length < 1.5, "\(calibration)")
        #expect(calibration.device == "hmc5883l" && calibration.headingError <= 2)
    }

    @Test func ctrlCSaysWhatWasMissingAndWritesNothing() async throws {
        let tree = try TurningIIOTree()
        tree.turn(Self.distortedSensor(), still: true)
        defer { tree.stop() }
        let output = tree.root.appendingPathComponent("calibration.json").path
        let calibrate = DaemonProcess(arguments: ["calibrate", "iio:?root=\(tree.root.path)", "--output", output])
        try calibrate.start()
        #expect(await calibrate.wait(timeout: .seconds(60)) { output, _ in output.contains(" samples · ") })
        calibrate.send(SIGINT)
        #expect(await calibrate.waitForExit(timeout: .seconds(30)))
        #expect(calibrate.terminationStatus == 1)
        #expect(calibrate.errors.contains("headingd calibrate: stopped: not enough, because"), "\(calibrate.errors)")
        #expect(calibrate.errors.contains("samples so far (100 needed)") || calibrate.errors.contains("of the sphere covered"), "\(calibrate.errors)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func badArgumentsAreSaid() async throws {
        let notIIO = try await DaemonProcess.run(["calibrate", "udp://0.0.0.0:10110"])
        #expect(notIIO.terminationStatus == 64 && notIIO.errors.contains("is not an IIO source"), "\(notIIO.errors)")
        let position = try await DaemonProcess.run(["calibrate", "iio:", "--position", "95,0"])
        #expect(position.terminationStatus == 64 && position.errors.contains("--position must be LAT,LON"), "\(position.errors)")
        let missing = try await DaemonProcess.run(["calibrate", "iio:?root=/nonexistent-\(UUID().uuidString)"])
        #expect(missing.terminationStatus == 69 && missing.errors.contains("no magnetometer under"), "\(missing.errors)")
    }

    @Test func aDriftedHardIronIsRefinedAtSeaLoggedAndKept() async throws {
        let tree = try TurningIIOTree()
        let sensor = Self.distortedSensor()
        tree.turn(sensor, boat: true)
        defer { tree.stop() }
        let state = tree.root.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let file = state.appendingPathComponent("calibration-hmc5883l.json").path
        // In force: the true calibration but for 5 µT of hard iron that has drifted since.
        let truth = try #require(sensor.softIron.inverse)
        let drifted = MagnetometerCalibration(
            offset: sensor.hardIron + Vector3(x: 3, y: -4, z: 0), softIron: truth, mode: .ellipsoid, fieldStrength: 49, residual: 0.2, headingError: 0.5,
            coverage: 0.9, samples: 600, date: Date(timeIntervalSince1970: 1_790_000_000))
        try drifted.encoded().write(to: URL(fileURLWithPath: file))
        let daemon = DaemonProcess(
            arguments: ["--source", "iio:?root=\(tree.root.path)&rate=100", "--format", "json"], environment: ["STATE_DIRECTORY": state.path])
        try daemon.start()
        defer { daemon.send(SIGTERM) }
        #expect(await daemon.wait(timeout: .seconds(60), untilErrorsContain: "; kept in \(file)"), "\(daemon.errors)")
        #expect(daemon.errors.contains("calibration refined at sea: hard iron moved by "), "\(daemon.errors)")
        let kept = try MagnetometerCalibration.read(Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(abs(kept.offset.x - sensor.hardIron.x) < 1 && abs(kept.offset.y - sensor.hardIron.y) < 1, "\(kept.offset) vs \(sensor.hardIron)")
        #expect(kept.softIron == truth && kept.date > drifted.date)

        // calibration_refine=false: the same drift is left alone.
        try drifted.encoded().write(to: URL(fileURLWithPath: file))
        let fixed = try await DaemonProcess.run(
            ["--source", "iio:?root=\(tree.root.path)&rate=100&calibration_refine=false", "--format", "json", "--count", "600"],
            environment: ["STATE_DIRECTORY": state.path])
        #expect(fixed.terminationStatus == 0 && !fixed.errors.contains("refined"), "\(fixed.errors)")
        #expect(try MagnetometerCalibration.read(Data(contentsOf: URL(fileURLWithPath: file))) == drifted)
    }

    @Test func aRunningHeadingdTakesANewCalibrationOnSIGHUP() async throws {
        let tree = try TurningIIOTree()
        tree.turn(Self.distortedSensor(), still: true)
        defer { tree.stop() }
        let state = tree.root.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let port = GPSFake.freePort()
        let source = "iio:?root=\(tree.root.path)&rate=20"
        let daemon = DaemonProcess(
            arguments: ["--source", source, "--format", "json", "--status", "--metrics", "--http-listen", "127.0.0.1:\(port)"],
            environment: ["STATE_DIRECTORY": state.path])
        try daemon.start()
        defer { daemon.send(SIGTERM) }
        let file = state.appendingPathComponent("calibration-hmc5883l.json").path
        #expect(await daemon.wait(untilErrorsContain: "no calibration file (\(file)): run headingd calibrate"), "\(daemon.errors)")
        #expect(await daemon.wait { output, _ in output.contains("\"accuracy\":30.0") }, "\(daemon.output.suffix(400))")
        // The state, stated: status.json, /metrics, headingd status.
        let (_, _, before) = try await HeadingdMetricsTests.get("http://127.0.0.1:\(port)/status.json")
        #expect(before.contains("\"calibration\":{") && before.contains("\"state\":\"none\""), "\(before)")
        let (_, _, uncalibrated) = try await HeadingdMetricsTests.get("http://127.0.0.1:\(port)/metrics")
        #expect(HeadingdMetricsTests.samples(uncalibrated)["headingd_source_calibrated{source=\"\(source)\"}"] == 0, "\(uncalibrated)")
        let sensor = Self.distortedSensor()
        let calibration = MagnetometerCalibration(
            offset: sensor.hardIron, softIron: .identity, mode: .hardIron, fieldStrength: 49, residual: 0.3, headingError: 1, coverage: 0.8, samples: 300)
        try calibration.encoded().write(to: URL(fileURLWithPath: file))
        daemon.send(SIGHUP)
        #expect(await daemon.wait(untilErrorsContain: "calibration \(file) in force (hardIron, 0.30 µT RMS, about 1.0° of heading"), "\(daemon.errors)")
        #expect(await daemon.wait { output, _ in output.contains("\"accuracy\":2.0") }, "\(daemon.output.suffix(400))")
        let (_, _, after) = try await HeadingdMetricsTests.get("http://127.0.0.1:\(port)/status.json")
        let report = try JSONDecoder().decode(StatusReport.self, from: Data(after.utf8))
        let calibrationShown = try #require(report.sources.first?.calibration)
        #expect(calibrationShown.state == "calibrated" && calibrationShown.mode == "hardIron" && calibrationShown.headingErrorDegrees == 1, "\(after)")
        #expect(calibrationShown.file == file && (calibrationShown.ageSeconds ?? 999) < 120)
        let (_, _, calibrated) = try await HeadingdMetricsTests.get("http://127.0.0.1:\(port)/metrics")
        let samples = HeadingdMetricsTests.samples(calibrated)
        #expect(samples["headingd_source_calibrated{source=\"\(source)\"}"] == 1, "\(calibrated)")
        #expect(samples["headingd_source_calibration_error_degrees{source=\"\(source)\"}"] == 1, "\(calibrated)")
        let status = try await DaemonProcess.run(["status", "--url", "http://127.0.0.1:\(port)"])
        #expect(status.output.contains("      calibration: hardIron, about 1.0° (0 min old), refining at sea"), "\(status.output)")
    }
}

/// The refusal of a fit unlike the model's: the suite's slowest test (about 95 s on an idle 2-core machine
/// in a debug build, over 240 s in a loaded fresh-clone run, which ran past the default process-slot
/// limit), so it has a suite and a limit of its own.
@Suite(.processSlot(limit: .seconds(420)), .timeLimit(.minutes(20)))
struct HeadingdCalibrateRefusalTests {
    @Test func aFieldUnlikeTheModelsIsRefusedWithTheReason() async throws {
        let tree = try TurningIIOTree()
        tree.turn(HeadingdCalibrateTests.distortedSensor())
        defer { tree.stop() }
        // The Solent's 48.9 µT, said to be at 0° N 0° E, where the model gives about 32 µT.
        let calibrate = try await DaemonProcess.run(
            ["calibrate", "iio:?root=\(tree.root.path)&rate=100", "--position", "0,0", "--output", tree.root.appendingPathComponent("c.json").path],
            timeout: .seconds(400))
        #expect(calibrate.terminationStatus == 1, "\(calibrate.output)\n\(calibrate.errors)")
        #expect(calibrate.errors.contains("refused for 10 s: the fit is refused, because the field measures"), "\(calibrate.errors)")
        #expect(calibrate.errors.contains("a magnetic disturbance nearby"), "\(calibrate.errors)")
    }
}
