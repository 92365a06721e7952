// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import HeadingKit
import HeadingKitTesting
import Testing

/// Three sites of the accuracy benchmark, the model's field there in mid-2026.
enum CalibrationSites {
    static let all: [(name: String, latitude: Double, longitude: Double)] = [
        ("Solent", 50.78, -1.30), ("Sydney", -33.85, 151.25), ("Tromsø", 69.65, 18.96),
    ]

    static func field(_ site: (name: String, latitude: Double, longitude: Double)) -> WorldMagneticModel.Field {
        WorldMagneticModel.wmm2025.field(latitude: site.latitude, longitude: site.longitude, decimalYear: 2026.5)
    }

    /// A symmetric soft iron with every entry up to ±`share` off the identity's (diagonal and cross terms).
    static func softIron(_ share: Double, using sensor: inout SimulatedMagnetometer) -> Matrix3 {
        let (xy, xz, yz) = (sensor.uniform(-share...share) / 2, sensor.uniform(-share...share) / 2, sensor.uniform(-share...share) / 2)
        return Matrix3(
            Vector3(x: 1 + sensor.uniform(-share...share), y: xy, z: xz), Vector3(x: xy, y: 1 + sensor.uniform(-share...share), z: yz),
            Vector3(x: xz, y: yz, z: 1 + sensor.uniform(-share...share))
        )
    }

    /// A hard iron of `times` the field's strength, in a random direction.
    static func hardIron(times: Double, field: WorldMagneticModel.Field, using sensor: inout SimulatedMagnetometer) -> Vector3 {
        let direction = Vector3(x: sensor.uniform(-1...1), y: sensor.uniform(-1...1), z: sensor.uniform(-1...1))
        return direction * (times * field.totalIntensity / 1000 / max(direction.length, 1e-6))
    }

    /// Heading errors on a grid: every 10° of heading, heel and trim to ±30°.
    static func errors(of sensor: inout SimulatedMagnetometer, corrected: (Vector3) -> Vector3) -> [Double] {
        var errors: [Double] = []
        for heading in stride(from: 0.0, to: 360, by: 10) {
            for pitch in stride(from: -30.0, through: 30, by: 15) {
                for roll in stride(from: -30.0, through: 30, by: 15) {
                    let reading = sensor.reading(heading: heading, pitch: pitch, roll: roll)
                    guard let attitude = try? TiltCompensation.attitude(field: corrected(reading.field), acceleration: reading.acceleration) else {
                        errors.append(180)
                        continue
                    }
                    errors.append(abs(Degrees.signedDifference(from: heading, to: attitude.heading)))
                }
            }
        }
        return errors
    }

    /// Offers `count` readings of the sensor turned every way.
    static func tumble(_ sensor: inout SimulatedMagnetometer, _ count: Int, into calibrator: inout MagnetometerCalibrator) {
        for _ in 0..<count {
            let attitude = sensor.randomAttitude()
            let reading = sensor.reading(heading: attitude.heading, pitch: attitude.pitch, roll: attitude.roll)
            calibrator.add(field: reading.field, acceleration: reading.acceleration)
        }
    }

    static func rms(_ values: [Double]) -> Double { (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot() }
}

struct MagnetometerCalibratorTests {
    @Test func aTumbledSensorGivesItsHardAndSoftIronBack() throws {
        let field = CalibrationSites.field(CalibrationSites.all[0])
        var sensor = SimulatedMagnetometer(field: field, noise: 0.2, accelerationNoise: 0.02, seed: 7)
        sensor.hardIron = Vector3(x: 40, y: -25, z: 60)
        sensor.softIron = Matrix3(Vector3(x: 1.15, y: 0.05, z: -0.04), Vector3(x: 0.05, y: 0.9, z: 0.06), Vector3(x: -0.04, y: 0.06, z: 1.05))
        var calibrator = MagnetometerCalibrator(shape: .sphere, reference: .init(field))
        CalibrationSites.tumble(&sensor, 800, into: &calibrator)
        let calibration = try #require(calibrator.fit())
        #expect(calibration.mode == .ellipsoid)
        #expect((calibration.offset - sensor.hardIron).length < 0.5, "\(calibration.offset)")
        // The soft iron undoes the distortion up to a scale: W × S ≈ k I.
        let product = calibration.softIron * sensor.softIron
        let scale = product.rows.0.x
        for (row, unit) in [(product.rows.0, Vector3(x: 1, y: 0, z: 0)), (product.rows.1, Vector3(x: 0, y: 1, z: 0)), (product.rows.2, Vector3(x: 0, y: 0, z: 1))] {
            #expect((row * (1 / scale) - unit).length < 0.01, "\(product)")
        }
        #expect(abs(calibration.fieldStrength - field.totalIntensity / 1000) / (field.totalIntensity / 1000) < 0.1)
        #expect(abs(try #require(calibration.inclination) - field.inclination) < 2)
        #expect(calibration.residual < 0.5 && calibration.headingError < 1.5, "\(calibration)")
        #expect(calibration.coverage >= 0.9)
        #expect(calibrator.assess(calibration) == .good)
    }

    @Test func aBoatTurnedThroughACircleGivesItsHorizontalIronBack() throws {
        let field = CalibrationSites.field(CalibrationSites.all[1])
        var sensor = SimulatedMagnetometer(field: field, noise: 0.2, accelerationNoise: 0.02, seed: 11)
        sensor.hardIron = Vector3(x: -30, y: 20, z: 15)
        sensor.softIron = Matrix3(Vector3(x: 1.1, y: -0.06, z: 0), Vector3(x: -0.06, y: 0.92, z: 0), Vector3(x: 0, y: 0, z: 1))
        var calibrator = MagnetometerCalibrator(shape: .circle, reference: .init(field))
        // Two turns, heeled 10° to port on the first and 10° to starboard on the second, pitching a little.
        for step in 0..<720 {
            let heel = step < 360 ? -10.0 : 10.0
            let reading = sensor.reading(heading: Double(step % 360), pitch: sensor.uniform(-3...3), roll: heel + sensor.uniform(-2...2))
            calibrator.add(field: reading.field, acceleration: reading.acceleration)
        }
        let calibration = try #require(calibrator.fit())
        #expect(calibration.mode == .circle && calibration.coverage == 1)
        #expect(abs(calibration.offset.x - sensor.hardIron.x) < 1 && abs(calibration.offset.y - sensor.hardIron.y) < 1, "\(calibration.offset)")
        #expect(abs(calibration.offset.z - sensor.hardIron.z) < 3, "heeled both ways, the vertical hard iron is seen: \(calibration.offset)")
        #expect(calibration.headingError < 1.5)
        #expect(calibrator.assess(calibration) == .good, "\(calibrator.assess(calibration))")
        var check = sensor
        let errors = CalibrationSites.errors(of: &check) { calibration.corrected($0) }
        #expect(CalibrationSites.rms(errors) < 3, "\(CalibrationSites.rms(errors))")
    }

    @Test func aHalfTurnIsNotEnoughAndSaysWhatIsMissing() throws {
        let field = CalibrationSites.field(CalibrationSites.all[0])
        var sensor = SimulatedMagnetometer(field: field, noise: 0.1, seed: 3)
        var calibrator = MagnetometerCalibrator(shape: .circle, reference: .init(field))
        for step in 0..<400 {
            let reading = sensor.reading(heading: Double(step) * 180 / 400, pitch: 0, roll: 0)
            calibrator.add(field: reading.field, acceleration: reading.acceleration)
        }
        let verdict = calibrator.assess(calibrator.fit())
        guard case .notEnough(let reasons) = verdict else {
            Issue.record("expected not enough, got \(verdict)")
            return
        }
        #expect(reasons.contains { $0.contains("of 36 sectors of 10° covered: keep turning") }, "\(reasons)")
    }

    @Test func aMagnetNearbyIsRefusedWithTheReason() throws {
        let solent = CalibrationSites.field(CalibrationSites.all[0])
        // Calibrated in a field half again as strong as the model's: a disturbance, not the Earth.
        let disturbed = WorldMagneticModel.Field(north: solent.north * 1.6, east: solent.east * 1.6, down: solent.down * 1.6)
        var sensor = SimulatedMagnetometer(field: disturbed, noise: 0.1, seed: 5)
        var calibrator = MagnetometerCalibrator(shape: .sphere, reference: .init(solent))
        CalibrationSites.tumble(&sensor, 600, into: &calibrator)
        let verdict = calibrator.assess(calibrator.fit())
        guard case .refused(let reasons) = verdict else {
            Issue.record("expected refused, got \(verdict)")
            return
        }
        #expect(reasons.contains { $0.contains("a magnetic disturbance nearby") && $0.contains("+60 %") }, "\(reasons)")
    }

    /// Offers `count` readings of the sensor turned every way, every `tornEvery`-th one torn: its X axis
    /// read at one attitude and Y and Z at the next, as three sysfs files read across a fast turn.
    static func tumbleTearing(_ sensor: inout SimulatedMagnetometer, _ count: Int, tornEvery: Int, into calibrator: inout MagnetometerCalibrator) -> Int {
        var torn = 0
        for index in 0..<count {
            var attitude = sensor.randomAttitude()
            var reading = sensor.reading(heading: attitude.heading, pitch: attitude.pitch, roll: attitude.roll)
            if index % tornEvery == tornEvery - 1 {
                attitude = sensor.randomAttitude()
                let next = sensor.reading(heading: attitude.heading, pitch: attitude.pitch, roll: attitude.roll)
                reading.field = Vector3(x: reading.field.x, y: next.field.y, z: next.field.z)
                if calibrator.add(field: reading.field, acceleration: reading.acceleration) { torn += 1 }
            } else {
                calibrator.add(field: reading.field, acceleration: reading.acceleration)
            }
        }
        return torn
    }

    @Test func aFewTornReadingsAreSetAsideAndTheFitIsAsGood() throws {
        let field = CalibrationSites.field(CalibrationSites.all[0])
        var sensor = SimulatedMagnetometer(field: field, noise: 0.15, accelerationNoise: 0.02, seed: 37)
        sensor.hardIron = Vector3(x: 20, y: -35, z: 15)
        sensor.softIron = Matrix3(Vector3(x: 1.1, y: 0.04, z: 0), Vector3(x: 0.04, y: 0.93, z: -0.03), Vector3(x: 0, y: -0.03, z: 1.02))
        var calibrator = MagnetometerCalibrator(shape: .sphere, reference: .init(field))
        let torn = Self.tumbleTearing(&sensor, 1500, tornEvery: 50, into: &calibrator)
        #expect(torn == 30)
        let calibration = try #require(calibrator.fit())
        // Torn readings far off the sphere are set aside (one torn across a small turn may stay, harmless).
        let setAside = calibrator.sampleCount - calibration.samples
        #expect(setAside > 20 && setAside <= torn, "\(setAside) of \(torn) torn set aside")
        #expect((calibration.offset - sensor.hardIron).length < 0.5, "\(calibration.offset)")
        #expect(calibration.residual < 0.4 && calibration.headingError < 1.2, "\(calibration)")
        #expect(calibrator.assess(calibration) == .good, "\(calibrator.assess(calibration))")
        // Kept in, those 2 % alone would fail the bound: the residual over every sample, this fit's.
        let everyError = calibrator.samples.map { MagnetometerCalibrator.error(of: $0, corrected: calibration) }
        let everyResidual = CalibrationSites.rms(everyError)
        #expect(atan(everyResidual / (field.horizontalIntensity / 1000)) * 180 / .pi > MagnetometerCalibrator.Bounds.headingError, "\(everyResidual) µT")
    }

    @Test func manyReadingsOffTheFitAreNotSetAsideButSaidInTheResidual() throws {
        let field = CalibrationSites.field(CalibrationSites.all[0])
        var sensor = SimulatedMagnetometer(field: field, noise: 0.15, accelerationNoise: 0.02, seed: 41)
        var calibrator = MagnetometerCalibrator(shape: .sphere, reference: .init(field))
        let torn = Self.tumbleTearing(&sensor, 1500, tornEvery: 5, into: &calibrator)
        #expect(torn == 300)
        let calibration = try #require(calibrator.fit())
        #expect(calibration.samples == calibrator.sampleCount, "20 % off the fit is not a glitch: nothing set aside")
        guard case .notEnough(let reasons) = calibrator.assess(calibration) else {
            Issue.record("expected not enough, got \(calibrator.assess(calibration))")
            return
        }
        #expect(reasons.contains { $0.contains("move it more slowly") }, "\(reasons)")
    }

    @Test func memoryIsBoundedAndAStillSensorAddsNothing() {
        var calibrator = MagnetometerCalibrator(shape: .sphere, capacity: 200)
        for _ in 0..<1000 { calibrator.add(field: Vector3(x: 20, y: 0, z: -40), acceleration: nil) }
        #expect(calibrator.sampleCount == 1)
        var sensor = SimulatedMagnetometer(field: CalibrationSites.field(CalibrationSites.all[2]), noise: 0.5, seed: 9)
        for _ in 0..<20_000 {
            let attitude = sensor.randomAttitude()
            calibrator.add(field: sensor.reading(heading: attitude.heading, pitch: attitude.pitch, roll: attitude.roll).field, acceleration: nil)
        }
        #expect(calibrator.sampleCount <= 200)
        let notANumber = calibrator.add(field: Vector3(x: .nan, y: 0, z: 0), acceleration: nil)
        let freeFall = calibrator.add(field: Vector3(x: 30, y: 0, z: 0), acceleration: Vector3(x: 0, y: 0.1, z: 0))
        #expect(!notANumber && !freeFall, "no sample without a number, nor in free fall (no down)")
    }

    @Test func aCalibrationFileRoundTripsAndHostileOnesAreRefused() throws {
        let calibration = MagnetometerCalibration(
            offset: Vector3(x: 1, y: 2, z: 3), softIron: .identity, mode: .ellipsoid, fieldStrength: 48.5, inclination: 66,
            residual: 0.3, headingError: 0.9, coverage: 0.8, samples: 500, date: Date(timeIntervalSince1970: 1_790_000_000), device: "hmc5843"
        )
        #expect(try MagnetometerCalibration.read(calibration.encoded()) == calibration)
        let text = String(decoding: calibration.encoded(), as: UTF8.self)
        /// The same file with another soft iron (diagonal: symmetric whichever way it is read).
        func withSoftIron(_ x: Double, _ y: Double, _ z: Double) -> String {
            var changed = calibration
            changed.softIron = Matrix3(Vector3(x: x, y: 0, z: 0), Vector3(x: 0, y: y, z: 0), Vector3(x: 0, y: 0, z: z))
            return String(decoding: changed.encoded(), as: UTF8.self)
        }
        for (hostile, reason) in [
            // What FuzzIIO found: a determinant of 1 from 1e307 × 1e-307, which corrected a field to infinity.
            (withSoftIron(1e307, 1e-307, 1), "more than 3× along some axis"),
            (withSoftIron(-1, -1, 1), "not positive definite"),
            // FuzzIIO's second: an offset whose length is finite but no Int (the message converted it).
            (text.replacingOccurrences(of: "\"offset\" : [\n    1,", with: "\"offset\" : [\n    3e74,"), "beyond any magnetometer"),
            (withSoftIron(1, 1, 1).replacingOccurrences(of: "\"headingError\" : 0.9", with: "\"headingError\" : -5"), "out of range"),
            ("{}", "not a calibration"),
            (text.replacingOccurrences(of: "\"fieldStrength\" : 48.5", with: "\"fieldStrength\" : -1"), "out of range"),
            (text.replacingOccurrences(of: "\"offset\" : [\n    1,", with: "\"offset\" : [\n    100000,"), "beyond any magnetometer"),
            (text.replacingOccurrences(of: "\"softIron\" : [\n    [\n      1,", with: "\"softIron\" : [\n    [\n      100,"), "more than 3×"),
            (text.replacingOccurrences(of: "\"mode\" : \"ellipsoid\"", with: "\"mode\" : \"magic\""), "not a calibration"),
            (String(repeating: " ", count: 70_000), "bytes"),
        ] {
            #expect(hostile != text)
            #expect {
                try MagnetometerCalibration.read(Data(hostile.utf8))
            } throws: { error in
                (error as? MagnetometerCalibration.FileError)?.reason.contains(reason) == true
            }
        }
    }

    /// The accuracy benchmark of issue 37: after `calibrate`, heading RMS ≤ 1° and worst ≤ 3° over
    /// every heading with heel and trim to ±30°, at three sites, with hard iron up to twice the
    /// field and soft iron ±20 % with cross terms; beside no calibration and hard iron only.
    /// Deterministic (seeded), so its bounds are asserted; the table is printed for the notes.
    @Test func accuracyTableAtThreeSites() throws {
        var lines = ["site       field µT  incl°  | none RMS/worst   | hard iron only    | calibrated (ellipsoid)"]
        for (index, site) in CalibrationSites.all.enumerated() {
            let field = CalibrationSites.field(site)
            var sensor = SimulatedMagnetometer(field: field, noise: 0.3, accelerationNoise: 0.03, seed: UInt64(100 + index))
            sensor.hardIron = CalibrationSites.hardIron(times: 2, field: field, using: &sensor)
            sensor.softIron = CalibrationSites.softIron(0.2, using: &sensor)
            var calibrator = MagnetometerCalibrator(shape: .sphere, reference: .init(field))
            CalibrationSites.tumble(&sensor, 1500, into: &calibrator)
            let calibration = try #require(calibrator.fit())
            #expect(calibrator.assess(calibration) == .good, "\(site.name): \(calibrator.assess(calibration))")
            // The calibration's error, not the sensor's noise (0.3 µT is 1.6° a sample in Tromsø's 10.8 µT horizontal field;
            // a source's smoothing takes that down): the grid is read noise-free.
            sensor.noise = 0
            sensor.accelerationNoise = 0
            let hardIronOnly = MagnetometerCalibration(offset: calibration.offset, mode: .hardIron, fieldStrength: calibration.fieldStrength)
            let none = CalibrationSites.errors(of: &sensor) { $0 }
            let hard = CalibrationSites.errors(of: &sensor) { hardIronOnly.corrected($0) }
            let full = CalibrationSites.errors(of: &sensor) { calibration.corrected($0) }
            func cell(_ errors: [Double]) -> String { String(format: "%6.2f° / %6.2f°", CalibrationSites.rms(errors), errors.max() ?? 0) }
            lines.append(
                site.name.padding(toLength: 10, withPad: " ", startingAt: 0)
                    + String(format: " %7.1f  %5.1f  | ", field.totalIntensity / 1000, field.inclination) + cell(none) + " | " + cell(hard) + " | " + cell(full))
            #expect(CalibrationSites.rms(full) <= 1, "\(site.name)")
            #expect((full.max() ?? 180) <= 3, "\(site.name)")
            #expect(CalibrationSites.rms(hard) > CalibrationSites.rms(full), "\(site.name)")
        }
        print((["Accuracy (every 10° of heading × heel and trim −30…30° by 15°; hard iron 2× the field, soft iron ±20 % with cross terms; calibrated from 1,500 tumbled samples with noise 0.3 µT and 0.03 m/s², the grid read noise-free):"] + lines).joined(separator: "\n"))
    }
}

struct CalibrationRefinerTests {
    /// A boat turning circles, heeled to port then starboard, pitching a little.
    static func turns(_ sensor: inout SimulatedMagnetometer, count: Int, heel: Double = 8) -> [(field: Vector3, acceleration: Vector3)] {
        (0..<count).map { step in
            let roll = (step / 360) % 2 == 0 ? -heel : heel
            return sensor.reading(heading: Double(step % 360) + 0.5, pitch: sensor.uniform(-2...2), roll: roll + sensor.uniform(-1...1))
        }
    }

    @Test func aDriftedHardIronIsFoundAgainAtSeaAndAGoodOneIsLeftAlone() throws {
        let field = CalibrationSites.field(CalibrationSites.all[0])
        let softIron = Matrix3(Vector3(x: 1.08, y: 0.03, z: 0), Vector3(x: 0.03, y: 0.95, z: 0.02), Vector3(x: 0, y: 0.02, z: 1.0))
        var sensor = SimulatedMagnetometer(field: field, hardIron: Vector3(x: 12, y: -20, z: 8), softIron: softIron, noise: 0.15, accelerationNoise: 0.02, seed: 21)
        let truth = MagnetometerCalibration(offset: sensor.hardIron, softIron: softIron.inverse!, mode: .ellipsoid, fieldStrength: 49, headingError: 0.3)
        // In force: the hard iron as it was before a tool box moved 6 µT of it.
        var drifted = truth
        drifted.offset = truth.offset + Vector3(x: 4, y: -4.5, z: 0)
        var refiner = CalibrationRefiner(calibration: drifted)
        var refinements: [CalibrationRefiner.Refinement] = []
        for reading in Self.turns(&sensor, count: 2160) {
            if let refinement = refiner.add(field: reading.field, acceleration: reading.acceleration) { refinements.append(refinement) }
        }
        let first = try #require(refinements.first)
        #expect(first.previousError > 2 && first.current.headingError < 0.5, "\(refinements)")
        let offset = refiner.calibration.offset
        #expect(abs(offset.x - truth.offset.x) < 0.5 && abs(offset.y - truth.offset.y) < 0.5, "\(offset) vs \(truth.offset)")
        #expect(abs(offset.z - truth.offset.z) < 2, "heeled both ways: the vertical is seen: \(offset)")
        #expect(refiner.calibration.softIron == drifted.softIron, "the soft iron in force is kept")
        // A calibration already right is not moved.
        var steady = CalibrationRefiner(calibration: truth)
        var moved = 0
        for reading in Self.turns(&sensor, count: 2160) where steady.add(field: reading.field, acceleration: reading.acceleration) != nil { moved += 1 }
        #expect(moved == 0)
    }

    @Test func halfATurnOrAPassingMagnetChangesNothing() {
        let field = CalibrationSites.field(CalibrationSites.all[1])
        var sensor = SimulatedMagnetometer(field: field, hardIron: Vector3(x: -10, y: 5, z: 0), noise: 0.1, seed: 4)
        let calibration = MagnetometerCalibration(offset: Vector3(x: -10, y: 5, z: 0), mode: .circle, fieldStrength: 24)
        var refiner = CalibrationRefiner(calibration: calibration)
        // Half a turn, many times over: never a full circle, never an evaluation that adopts.
        for step in 0..<3000 {
            let reading = sensor.reading(heading: Double(step % 180), pitch: 0, roll: 0)
            #expect(refiner.add(field: reading.field, acceleration: reading.acceleration) == nil)
        }
        // A full turn beside a magnet (a 30 µT jump, more than half the 24 µT horizontal field): refused.
        sensor.hardIron = Vector3(x: 20, y: 5, z: 0)
        for step in 0..<1440 {
            let reading = sensor.reading(heading: Double(step % 360), pitch: 0, roll: 0)
            #expect(refiner.add(field: reading.field, acceleration: reading.acceleration) == nil)
        }
        #expect(refiner.calibration == calibration)
    }

    @Test func theInverseOfASoftIron() throws {
        let matrix = Matrix3(Vector3(x: 1.1, y: 0.05, z: -0.02), Vector3(x: 0.05, y: 0.9, z: 0.03), Vector3(x: -0.02, y: 0.03, z: 1.05))
        let product = try #require(matrix.inverse) * matrix
        for (row, unit) in [(product.rows.0, Vector3(x: 1, y: 0, z: 0)), (product.rows.1, Vector3(x: 0, y: 1, z: 0)), (product.rows.2, Vector3(x: 0, y: 0, z: 1))] {
            #expect((row - unit).length < 1e-12)
        }
        #expect(Matrix3(Vector3(x: 1, y: 2, z: 3), Vector3(x: 2, y: 4, z: 6), Vector3(x: 0, y: 0, z: 1)).inverse == nil)
    }
}

struct CalibrationStatusTests {
    @Test func itReadsAsALineForAPerson() {
        let none = CalibrationStatus(state: .none, reason: "no calibration file")
        #expect("\(none)" == "none: no calibration file")
        let fit = MagnetometerCalibration(offset: Vector3(x: 1, y: 2, z: 3), mode: .hardIron, fieldStrength: 49, residual: 0.42, headingError: 1.1)
        let calibrated = CalibrationStatus(state: .calibrated, calibration: fit, file: "/var/lib/headingd/calibration-x.json")
        #expect("\(calibrated)" == "calibrated (hardIron, 0.42 µT RMS, about 1.1° of heading) from /var/lib/headingd/calibration-x.json")
    }

    @Test func hostileFilesAreSaidNeverReadWithoutEndOrWaitedOn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-calibration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let large = directory.appendingPathComponent("large.json").path
        try Data(repeating: 0x20, count: 200_000).write(to: URL(fileURLWithPath: large))
        let missing = directory.appendingPathComponent("missing.json").path
        for (path, reason) in [
            ("/dev/zero", "cannot be read (not a regular file)"), (fifo, "cannot be read (not a regular file)"),
            (directory.path, "cannot be read (not a regular file)"), (large, "is not applied: it is 65537 bytes, more than any calibration"),
            (missing, "calibration file \(missing) does not exist"),
        ] {
            let status = CalibrationStatus.loading(path, required: true)
            #expect(status.state == CalibrationStatus.State.none && status.reason?.contains(reason) == true, "\(path): \(String(describing: status.reason))")
        }
        #expect(CalibrationStatus.loading(missing, required: false).reason == "no calibration file (\(missing)): run headingd calibrate")
    }
}
