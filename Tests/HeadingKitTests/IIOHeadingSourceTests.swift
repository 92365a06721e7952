// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import HeadingPorts
import Testing

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

@testable import HeadingKit

/// An attitude, and what a sensor level in that attitude reads: a field from the model's
/// horizontal and vertical intensities, gravity's reaction, both in the device frame.
struct SyntheticAttitude {
    var heading: Double
    var pitch: Double
    var roll: Double

    static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

    /// The device's axes in the world's (east, north, up) frame: yaw (clockwise), then pitch (bow up), then roll (starboard down).
    var rotation: Matrix3 {
        let (psi, theta, phi) = (-Self.radians(heading), Self.radians(pitch), Self.radians(roll))
        let yaw = Matrix3(Vector3(x: cos(psi), y: -sin(psi), z: 0), Vector3(x: sin(psi), y: cos(psi), z: 0), Vector3(x: 0, y: 0, z: 1))
        let pitchMatrix = Matrix3(Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: cos(theta), z: -sin(theta)), Vector3(x: 0, y: sin(theta), z: cos(theta)))
        let rollMatrix = Matrix3(Vector3(x: cos(phi), y: 0, z: sin(phi)), Vector3(x: 0, y: 1, z: 0), Vector3(x: -sin(phi), y: 0, z: cos(phi)))
        return yaw * pitchMatrix * rollMatrix
    }

    /// The field a sensor reads: horizontal intensity toward magnetic north, vertical (down positive) below.
    func field(horizontal: Double = 0.19, down: Double = 0.45) -> Vector3 {
        rotation.transposed * Vector3(x: 0, y: horizontal, z: -down)
    }

    /// What the accelerometer reads at rest: +g up.
    var acceleration: Vector3 { rotation.transposed * Vector3(x: 0, y: 0, z: 9.80665) }
}

struct TiltCompensationTests {
    @Test func everyHeadingWithHeelAndTrimToThirtyDegrees() throws {
        for heading in stride(from: 0.0, to: 360, by: 15) {
            for (pitch, roll) in [(0.0, 0.0), (30, 0), (-30, 0), (0, 30), (0, -30), (20, -25), (-15, 30)] {
                let attitude = SyntheticAttitude(heading: heading, pitch: pitch, roll: roll)
                // The southern hemisphere too: the vertical field points up there.
                for down in [0.45, -0.3] {
                    let result = try TiltCompensation.attitude(field: attitude.field(down: down), acceleration: attitude.acceleration)
                    #expect(abs(Degrees.signedDifference(from: heading, to: result.heading)) < 1e-6, "\(heading) \(pitch) \(roll): \(result)")
                    #expect(abs(result.pitch - pitch) < 1e-6 && abs(result.roll - roll) < 1e-6, "\(heading) \(pitch) \(roll): \(result)")
                }
            }
        }
    }

    @Test func withoutTiltCompensationHeelSwingsTheHeading() throws {
        // What tilt compensation is for: 20° of heel, heading 45°, taken as level, is many degrees off.
        let heeled = SyntheticAttitude(heading: 45, pitch: 0, roll: 20)
        let level = try TiltCompensation.attitude(field: heeled.field(), acceleration: Vector3(x: 0, y: 0, z: 9.81))
        #expect(abs(Degrees.signedDifference(from: 45, to: level.heading)) > 10, "\(level.heading)")
    }

    @Test func freeFallNoFieldAndAFieldAlongGravityAreSaidNotGuessed() {
        let level = SyntheticAttitude(heading: 0, pitch: 0, roll: 0)
        #expect(throws: TiltCompensation.Failure.noGravity(0.1)) { try TiltCompensation.attitude(field: level.field(), acceleration: Vector3(x: 0, y: 0.1, z: 0)) }
        #expect(throws: TiltCompensation.Failure.noField(0)) { try TiltCompensation.attitude(field: .zero, acceleration: level.acceleration) }
        #expect(throws: TiltCompensation.Failure.fieldAlongGravity) {
            try TiltCompensation.attitude(field: Vector3(x: 0, y: 0, z: -0.5), acceleration: level.acceleration)
        }
        #expect(throws: TiltCompensation.Failure.noGravity(0)) {
            try TiltCompensation.attitude(field: level.field(), acceleration: Vector3(x: .nan, y: 0, z: 9.8))
        }
    }
}

struct IIOValueTests {
    @Test(arguments: [("12\n", 12.0), ("-0.000244140\n", -0.000244140), ("  3.5 \n", 3.5), ("+7", 7), ("0", 0), ("-.5", -0.5)])
    func numbersAsTheKernelWritesThem(_ text: String, _ value: Double) {
        #expect(IIOValue.parse(Array(text.utf8)) == value)
    }

    @Test(arguments: ["", "\n", "35\u{0}abc9.5", "1e3", "abc", "1.2.3", "--1", "nan", "inf", "0,5", "1 2", "-", ".", String(repeating: "9", count: 65), "12\u{0}"])
    func anythingElseIsRefused(_ text: String) {
        #expect(IIOValue.parse(Array(text.utf8)) == nil, "\(text.debugDescription)")
    }

    @Test func mountMatricesAsTheKernelWritesThem() {
        let matrix = IIOValue.matrix(Array("0, 1, 0; 1, 0, 0; 0, 0, -1\n".utf8))
        #expect(matrix == Matrix3(Vector3(x: 0, y: 1, z: 0), Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 0, z: -1)))
        #expect(matrix.map { $0 * Vector3(x: 1, y: 2, z: 3) } == Vector3(x: 2, y: 1, z: -3), "v_device = M × v_sensor, the first triple the first row")
        for bad in ["0, 1, 0; 1, 0, 0", "0, 1; 1, 0, 0; 0, 0, 1", "a, 1, 0; 1, 0, 0; 0, 0, 1", "1, 0, 0; 0, 1, 0; 0, 0, 1; 1, 1, 1"] {
            #expect(IIOValue.matrix(Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}

struct IIOEndpointTests {
    @Test func theFormsItTakes() throws {
        let first = try IIOEndpoint(parsing: "iio:")
        #expect(first.magnetometer == nil && first.rate == 25 && first.root == "/sys/bus/iio/devices" && first.orientation == .identity)
        let chosen = try IIOEndpoint(parsing: "iio://hmc5883l?accel=iio:device1&gyro=none&rate=10&root=/tmp/iio&orientation=turned-right")
        #expect(chosen.magnetometer == "hmc5883l" && chosen.accelerometer == "iio:device1" && chosen.gyroscope == "none" && chosen.rate == 10 && chosen.root == "/tmp/iio")
        // Turned right: the device's +Y (its forward) points to starboard, the vessel's +X.
        #expect(chosen.orientation * Vector3(x: 0, y: 1, z: 0) == Vector3(x: 1, y: 0, z: 0))
        #expect(chosen.description == "iio://hmc5883l?accel=iio:device1&gyro=none&rate=10.0&root=/tmp/iio&orientation=turned-right")
        let matrix = try IIOEndpoint(parsing: "iio:?orientation=0,-1,0;1,0,0;0,0,1")
        #expect(matrix.orientation * Vector3(x: 0, y: 1, z: 0) == Vector3(x: -1, y: 0, z: 0))
    }

    @Test(arguments: [
        ("iio:?rate=0", "rate must be between"), ("iio:?rate=abc", "rate must be between"), ("iio:?root=relative", "root must be an absolute"),
        ("iio:?orientation=2,0,0;0,1,0;0,0,1", "orientation must be"), ("iio:?orientation=-1,0,0;0,1,0;0,0,1", "orientation must be"),
        ("iio:?speed=3", "unknown IIO parameter 'speed'"), ("iio", "an IIO source is"), ("iio://", "an IIO source is") as (String, String),
    ])
    func badFormsAreRefusedWithTheirReason(_ text: String, _ reason: String) throws {
        if text == "iio://" {
            // iio:// alone is accepted, as iio: (before, this passed whether it was accepted or refused).
            let parsed = try #require(try? IIOEndpoint(parsing: text))
            #expect(parsed == (try IIOEndpoint(parsing: "iio:")) && parsed.magnetometer == nil)
            return
        }
        #expect(throws: IIOEndpoint.ParseError.self) { try IIOEndpoint(parsing: text) }
        do { _ = try IIOEndpoint(parsing: text) } catch { #expect(error.reason.contains(reason), "\(error.reason)") }
    }
}

/// A fake sysfs tree of IIO devices, as the kernel lays one out: for the source's tests.
struct FakeIIOTree {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-iio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// Writes attributes of `device` (made when absent).
    func write(_ device: String, _ attributes: [String: String]) throws {
        let directory = root.appendingPathComponent(device)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, value) in attributes { try Data(value.utf8).write(to: directory.appendingPathComponent(name)) }
    }

    /// Writes attributes of `device` in place while a source reads them, as the kernel's change:
    /// never truncated (a read between a truncation and the write would find the file empty, as an
    /// unbound device's is), padded with spaces to the old length; the same file, so a descriptor
    /// held open reads the new value.
    func rewrite(_ device: String, _ attributes: [String: String]) throws {
        for (name, value) in attributes {
            let path = root.appendingPathComponent(device).appendingPathComponent(name).path
            let old = (try? Data(contentsOf: URL(fileURLWithPath: path)).count) ?? 0
            let handle = try #require(FileHandle(forWritingAtPath: path))
            defer { try? handle.close() }
            let text = value.trimmingCharacters(in: .newlines)
            try handle.write(contentsOf: Data((text + String(repeating: " ", count: max(0, old - text.utf8.count - 1)) + "\n").utf8))
        }
    }

    /// An HMC5883L-like magnetometer (per-axis scale, a mount matrix swapping X and Y) and a LIS3DH-like
    /// accelerometer (shared scale, an offset) reading `attitude`, with a hard iron in µT in the device frame.
    func writeCompass(_ attitude: SyntheticAttitude, hardIron: Vector3 = .zero, inPlace: Bool = false) throws {
        let field = attitude.field() + hardIron * 0.01  // Gauss, device frame
        // The sensor frame: the mount matrix M (X and Y swapped, Z turned over) gives v_device = M × v_sensor.
        let sensor = Vector3(x: field.y, y: field.x, z: -field.z)
        let scale = Vector3(x: 0.000909, y: 0.000909, z: 0.001020)
        try (inPlace ? rewrite : write)("iio:device0", [
            "name": "hmc5883l\n",
            "in_magn_x_scale": "0.000909\n", "in_magn_y_scale": "0.000909\n", "in_magn_z_scale": "0.001020\n",
            "in_magn_x_raw": "\(Int((sensor.x / scale.x).rounded()))\n", "in_magn_y_raw": "\(Int((sensor.y / scale.y).rounded()))\n",
            "in_magn_z_raw": "\(Int((sensor.z / scale.z).rounded()))\n",
            "in_magn_mount_matrix": "0, 1, 0; 1, 0, 0; 0, 0, -1\n",
        ])
        let acceleration = attitude.acceleration
        let accelerationScale = 0.009582
        func raw(_ value: Double) -> String { "\(Int((value / accelerationScale).rounded()) - 4)\n" }  // offset 4 below
        try (inPlace ? rewrite : write)("iio:device1", [
            "name": "lis3dh\n", "in_accel_scale": "0.009582\n", "in_accel_offset": "4\n",
            "in_accel_x_raw": raw(acceleration.x), "in_accel_y_raw": raw(acceleration.y), "in_accel_z_raw": raw(acceleration.z),
        ])
    }
}

@Suite(.timeLimit(.minutes(2)))
struct IIOHeadingSourceTests {
    static func start(_ tree: FakeIIOTree, _ parameters: String = "") throws -> (IIOHeadingSource, DelegateRecorder) {
        let source = IIOHeadingSource(configuration: .init(endpoint: try IIOEndpoint(parsing: "iio:?rate=50&root=\(tree.root.path)" + parameters)))
        let recorder = DelegateRecorder()
        source.delegate = recorder
        source.start()
        return (source, recorder)
    }

    @Test func aTiltedCompassGivesItsMagneticHeadingPitchAndRoll() async throws {
        let tree = try FakeIIOTree()
        defer { tree.remove() }
        try tree.writeCompass(SyntheticAttitude(heading: 123, pitch: 10, roll: -20))
        let (source, recorder) = try Self.start(tree)
        defer { source.stop() }
        #expect(await recorder.wait(timeout: .seconds(10)) { $0.compactMap(\.heading).count >= 3 }, "\(recorder.events)")
        let heading = try #require(recorder.headings.first)
        #expect(heading.trueHeading == nil && heading.kind == .compass && heading.source == "iio:?rate=50.0&root=\(tree.root.path)")
        // Raw values are whole numbers: a few hundredths of a degree of quantisation.
        #expect(abs(Degrees.signedDifference(from: 123, to: heading.magneticHeading ?? 0)) < 0.3, "\(heading)")
        #expect(abs((heading.pitch ?? 99) - 10) < 0.3 && abs((heading.roll ?? 99) + 20) < 0.3, "\(heading)")
        #expect(recorder.faults.map(\.code) == [.uncalibrated], "\(recorder.faults)")
        #expect(recorder.faults.first?.reason.contains("iio:device0 (hmc5883l) has no calibration") == true)
        #expect(recorder.faults.first?.reason.contains("tilt-compensated by iio:device1 (lis3dh)") == true)
        #expect(recorder.events.contains(.authorizationChanged(.authorized)))
    }

    @Test func aSensorMountedTurnedRightIsTurnedBack() async throws {
        let tree = try FakeIIOTree()
        defer { tree.remove() }
        // Vessel heading 30°, the sensor's forward to starboard: the sensor itself points at 120°.
        try tree.writeCompass(SyntheticAttitude(heading: 120, pitch: 0, roll: 0))
        let (source, recorder) = try Self.start(tree, "&orientation=turned-right")
        defer { source.stop() }
        #expect(await recorder.wait(timeout: .seconds(10)) { $0.compactMap(\.heading).count >= 1 })
        #expect(abs(Degrees.signedDifference(from: 30, to: recorder.headings.first?.magneticHeading ?? 0)) < 0.3, "\(recorder.headings.first as Any)")
    }

    @Test func aCalibrationFileTakesTheHardIronOutAndIsStated() async throws {
        let tree = try FakeIIOTree()
        defer { tree.remove() }
        let hardIron = Vector3(x: 25, y: -40, z: 10)  // µT: far more than the 19 µT horizontal field
        try tree.writeCompass(SyntheticAttitude(heading: 200, pitch: 5, roll: 10), hardIron: hardIron)
        // Uncalibrated: the hard iron swings the heading far off, and the heading says it is not to be trusted.
        let (plain, plainRecorder) = try Self.start(tree)
        #expect(await plainRecorder.wait(timeout: .seconds(10)) { !$0.compactMap(\.heading).isEmpty })
        plain.stop()
        let wrong = try #require(plainRecorder.headings.first)
        #expect(abs(Degrees.signedDifference(from: 200, to: wrong.magneticHeading ?? 200)) > 5, "\(wrong)")
        #expect(wrong.headingAccuracy == 30)
        #expect(plain.calibrationStatus?.state == CalibrationStatus.State.none)
        // Calibrated by the file named: within quantisation of the truth, with the fit's accuracy.
        let file = tree.root.appendingPathComponent("calibration.json").path
        let calibration = MagnetometerCalibration(offset: hardIron, mode: .hardIron, fieldStrength: 49, residual: 0.2, headingError: 0.6, coverage: 0.9, samples: 400,
            date: Date(timeIntervalSince1970: 1_790_000_000))
        try calibration.encoded().write(to: URL(fileURLWithPath: file))
        let (source, recorder) = try Self.start(tree, "&calibration=\(file)")
        defer { source.stop() }
        #expect(await recorder.wait(timeout: .seconds(10)) { !$0.compactMap(\.heading).isEmpty })
        let heading = try #require(recorder.headings.first)
        #expect(abs(Degrees.signedDifference(from: 200, to: heading.magneticHeading ?? 0)) < 0.5, "\(heading)")
        #expect(heading.headingAccuracy == 1.2)
        #expect(recorder.faults.isEmpty, "no uncalibrated fault: \(recorder.faults)")
        var expected = CalibrationStatus(state: .calibrated, calibration: calibration, file: file)
        expected.refining = true
        #expect(source.calibrationStatus == expected)
    }

    @Test func theStateDirectorysFileIsFoundAndADamagedOneIsSaidNotApplied() async throws {
        let tree = try FakeIIOTree()
        defer { tree.remove() }
        try tree.writeCompass(SyntheticAttitude(heading: 80, pitch: 0, roll: 0), hardIron: Vector3(x: -30, y: 0, z: 0))
        let directory = tree.root.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let device = IIODevice(directory: tree.root.appendingPathComponent("iio:device0").path)
        let file = IIOHeadingSource.calibrationFile(for: device, in: directory)
        #expect(file == directory + "/calibration-hmc5883l.json")
        try Data("{\"offset\": [1, 2".utf8).write(to: URL(fileURLWithPath: file))
        func run() async throws -> (IIOHeadingSource, DelegateRecorder) {
            let source = IIOHeadingSource(
                configuration: .init(endpoint: try IIOEndpoint(parsing: "iio:?rate=50&root=\(tree.root.path)"), calibrationDirectory: directory))
            let recorder = DelegateRecorder()
            source.delegate = recorder
            source.start()
            #expect(await recorder.wait(timeout: .seconds(10)) { !$0.compactMap(\.heading).isEmpty })
            source.stop()
            return (source, recorder)
        }
        let (damaged, damagedRecorder) = try await run()
        #expect(damagedRecorder.faults.map(\.code) == [.uncalibrated])
        #expect(damagedRecorder.faults.first?.reason.contains("calibration file \(file) is not applied: it is not a calibration") == true, "\(damagedRecorder.faults)")
        #expect(damaged.calibrationStatus?.state == CalibrationStatus.State.none)
        try MagnetometerCalibration(offset: Vector3(x: -30, y: 0, z: 0), mode: .hardIron, fieldStrength: 49).encoded().write(to: URL(fileURLWithPath: file))
        let (fixed, fixedRecorder) = try await run()
        #expect(fixed.calibrationStatus?.state == .calibrated)
        #expect(abs(Degrees.signedDifference(from: 80, to: fixedRecorder.headings.first?.magneticHeading ?? 0)) < 0.5)
    }

    @Test func aGyroscopeCarriesTheHeadingThroughATurn() async throws {
        // A steady gyro reading of 10°/s to starboard beside a magnetometer that does not move: the
        // complementary filter settles 2 s (its time constant) × 10°/s ahead of the magnetometer —
        // proof that the gyro is read, in the right sense, and that the magnetometer holds it.
        let tree = try FakeIIOTree()
        defer { tree.remove() }
        try tree.writeCompass(SyntheticAttitude(heading: 100, pitch: 0, roll: 0))
        let scale = 0.000153
        let raw = Int((-10 * Double.pi / 180 / scale).rounded())  // clockwise: negative about +Z (up)
        try tree.write("iio:device2", [
            "name": "l3g4200d\n", "in_anglvel_scale": "\(scale)\n",
            "in_anglvel_x_raw": "0\n", "in_anglvel_y_raw": "0\n", "in_anglvel_z_raw": "\(raw)\n",
        ])
        let (source, recorder) = try Self.start(tree)
        defer { source.stop() }
        let expected = 100 + 2 * (-Double(raw) * scale * 180 / .pi)
        #expect(await recorder.wait(timeout: .seconds(30)) { events in
            events.compactMap(\.heading).contains { abs(($0.magneticHeading ?? 0) - expected) < 1 }
        }, "\(recorder.headings.suffix(3).map(\.magneticHeading))")
        #expect(recorder.headings.allSatisfy { ($0.magneticHeading ?? 0) >= 99.9 && ($0.magneticHeading ?? 0) <= expected + 0.5 })
    }

    @Test func aDeviceThatGoesAwayIsLostAndFoundAgain() async throws {
        let tree = try FakeIIOTree()
        defer { tree.remove() }
        try tree.writeCompass(SyntheticAttitude(heading: 200, pitch: 0, roll: 0))
        let (source, recorder) = try Self.start(tree)
        defer { source.stop() }
        #expect(await recorder.wait(timeout: .seconds(10)) { $0.compactMap(\.heading).count >= 2 })
        // Unbound: the files held open read nothing (the kernel's say ENODEV; emptied in place here).
        try tree.write("iio:device0", ["in_magn_x_raw": "", "in_magn_y_raw": "", "in_magn_z_raw": ""])
        #expect(await recorder.wait(timeout: .seconds(10)) { $0.contains { $0.fault?.code == .deviceLost } }, "\(recorder.faults)")
        #expect(recorder.faults.first { $0.code == .deviceLost }?.reason.contains("iio:device0 (hmc5883l) stopped answering") == true)
        let headingsBefore = recorder.headings.count
        try tree.writeCompass(SyntheticAttitude(heading: 200, pitch: 0, roll: 0))
        #expect(await recorder.wait(timeout: .seconds(15)) { $0.compactMap(\.heading).count > headingsBefore + 2 }, "\(recorder.faults)")
        #expect(recorder.faults.filter { $0.code == .uncalibrated }.count == 1, "said once a start")
    }

    @Test func aDisturbanceThatEndsIsARecoveredNoticeThroughTheProxy() async throws {
        // No gyroscope and no calibration: the field of the first 2 s is the reference. A magnet
        // of 30 µT beside the compass raises the fault; taken away, the source says it has ended,
        // and the proxy delivers that as a recovered notice (on which consumers clear the fault).
        let tree = try FakeIIOTree()
        defer { tree.remove() }
        let attitude = SyntheticAttitude(heading: 200, pitch: 0, roll: 0)
        try tree.writeCompass(attitude)
        let source = IIOHeadingSource(configuration: .init(endpoint: try IIOEndpoint(parsing: "iio:?rate=50&root=\(tree.root.path)")))
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let recorder = DelegateRecorder()
        let sink = proxy.publisher.sink { @Sendable in recorder.record($0) }
        defer { sink.cancel() }
        proxy.enable()
        defer { proxy.disable() }
        #expect(await recorder.wait(timeout: .seconds(20)) { events in
            events.contains { $0.fault?.code == .uncalibrated } && events.compactMap(\.heading).count >= 150
        }, "the reference is taken after 2 s at 50 Hz: \(recorder.faults)")
        try tree.writeCompass(attitude, hardIron: Vector3(x: 0, y: 30, z: 0), inPlace: true)
        #expect(await recorder.wait(timeout: .seconds(10)) { $0.contains { $0.fault?.code == .magneticDisturbance } }, "\(recorder.faults)")
        #expect(recorder.events.compactMap(\.notice).isEmpty)
        try tree.writeCompass(attitude, inPlace: true)
        #expect(await recorder.wait(timeout: .seconds(15)) { $0.contains { $0.notice?.code == .recovered } }, "\(recorder.events.suffix(3))")
        let notice = try #require(recorder.events.compactMap(\.notice).first)
        #expect(notice.source == source.name && notice.reason.contains("iio:device0 (hmc5883l): the magnetic field is back within bounds after"), "\(notice)")
        let disturbance = try #require(recorder.events.firstIndex { $0.fault?.code == .magneticDisturbance })
        let recovery = try #require(recorder.events.firstIndex { $0.notice != nil })
        #expect(disturbance < recovery)
    }

    @Test func badValuesAndNoMagnetometerAreFaultsNeverHeadings() async throws {
        let tree = try FakeIIOTree()
        defer { tree.remove() }
        let (source, recorder) = try Self.start(tree)
        #expect(await recorder.wait(timeout: .seconds(10)) { $0.contains { $0.fault?.code == .sourceUnavailable } })
        #expect(recorder.faults.first?.reason.hasPrefix("no magnetometer under \(tree.root.path) (no IIO devices); retrying in") == true, "\(recorder.faults)")
        source.stop()
        try tree.writeCompass(SyntheticAttitude(heading: 10, pitch: 0, roll: 0))
        let goodY = try String(contentsOf: tree.root.appendingPathComponent("iio:device0/in_magn_y_raw"), encoding: .utf8)
        try tree.write("iio:device0", ["in_magn_y_raw": "35\u{0}abc9.5\n"])
        let (bad, badRecorder) = try Self.start(tree)
        defer { bad.stop() }
        #expect(await badRecorder.wait(timeout: .seconds(10)) { $0.contains { $0.fault?.code == .malformedInput } })
        #expect(badRecorder.faults.first { $0.code == .malformedInput }?.reason.contains("in_magn_y_raw holds '35?abc9.5', not a number") == true, "\(badRecorder.faults)")
        // Free fall: the accelerometer reads nothing: said, no heading. (Written while the
        // magnetometer still reads junk, then the magnetometer mended: no good sample between.)
        for axis in ["x", "y", "z"] { try tree.write("iio:device1", ["in_accel_\(axis)_raw": "-4\n"]) }
        try tree.write("iio:device0", ["in_magn_y_raw": goodY])
        #expect(await badRecorder.wait(timeout: .seconds(10)) { $0.contains { $0.fault?.code == .outOfRange } }, "\(badRecorder.faults)")
        #expect(badRecorder.faults.contains { $0.reason.contains("free fall") })
        #expect(badRecorder.headings.isEmpty, "\(badRecorder.headings)")
    }
}

struct IIOSamplingFrequencyTests {
    @Test func theSmallestAtLeastEightTimesTheRateElseTheFastest() {
        let lis3dh = [1.0, 10, 25, 50, 100, 200, 400, 1600, 5000]
        #expect(IIOSamplingFrequency.choose(for: 25, among: lis3dh) == 200)
        #expect(IIOSamplingFrequency.choose(for: 10, among: lis3dh) == 100)
        #expect(IIOSamplingFrequency.choose(for: 25, among: [0.75, 1.5, 3, 7.5, 15, 30, 75]) == 75, "an HMC5883L's fastest")
        #expect(IIOSamplingFrequency.choose(for: 25, among: []) == nil)
        #expect(IIOSamplingFrequency.choose(for: 25, among: [.nan, -1, .infinity]) == nil)
    }

    @Test func itIsWrittenWhereWritableAndLeftAloneWhereNot() throws {
        let tree = try FakeIIOTree()
        defer { tree.remove() }
        try tree.write("iio:device1", ["name": "lis3dh\n", "sampling_frequency": "1\n", "sampling_frequency_available": "1 10 25 50 100 200 400 1600 5000\n"])
        let device = IIODevice(directory: tree.root.appendingPathComponent("iio:device1").path)
        #expect(IIOSamplingFrequency.adjust(device, for: 25) == .set(from: 1, to: 200))
        #expect(SysfsAttribute.contents(device.directory + "/sampling_frequency").flatMap { IIOValue.parse($0) } == 200)
        #expect(IIOSamplingFrequency.adjust(device, for: 25) == .unchanged(200))
        try tree.write("iio:device2", ["name": "hmc5883l\n"])
        #expect(IIOSamplingFrequency.adjust(IIODevice(directory: tree.root.appendingPathComponent("iio:device2").path), for: 25) == .notAdjustable)
        // A device that offers a frequency no Int holds: written as a Double, never a trap.
        try tree.write("iio:device3", ["name": "hostile\n", "sampling_frequency": "1\n", "sampling_frequency_available": "1000000000000000000000000000000\n"])
        let hostile = IIODevice(directory: tree.root.appendingPathComponent("iio:device3").path)
        #expect(IIOSamplingFrequency.adjust(hostile, for: 25) == .set(from: 1, to: 1e30))
        #expect(SysfsAttribute.contents(hostile.directory + "/sampling_frequency").map { String(decoding: $0, as: UTF8.self) } == "1e+30")
    }
}
