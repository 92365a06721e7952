// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import HeadingKit
import HeadingKitTesting
import Testing

/// A calibrated compass with a gyro, turning steadily in a seaway, when a field fixed to the boat
/// (a loudspeaker, a winch's motor) appears beside it for a while: simulated samples through the
/// IIO source's own fusion (``CompassFusion``), so that every figure is exact and the run instant.
struct MagneticDisturbanceTests {
    /// What one run gave.
    struct Run {
        /// Each heading's time, error from the truth (degrees, absolute), and accuracy.
        var headings: [(time: Double, error: Double, accuracy: Double)] = []
        var began: [(time: Double, reason: String)] = []
        var ended: [Double] = []
        var refinedAt: [Double] = []
        var limitAt: [Double] = []
        var taken: [(time: Double, reason: String, inDisturbance: Bool)] = []

        func errors(_ range: ClosedRange<Double>) -> [Double] { headings.filter { range.contains($0.time) }.map(\.error) }
        func percentile95(_ range: ClosedRange<Double>) -> Double {
            let sorted = errors(range).sorted()
            return sorted.isEmpty ? .infinity : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))]
        }
        func rms(_ range: ClosedRange<Double>) -> Double {
            let values = errors(range)
            return values.isEmpty ? .infinity : (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
        }
    }

    /// The scenario: 20 samples a second for `duration` s, turning at `rate` (4°/s), rolling ±10° and
    /// pitching ±3°; a field `disturbance` (µT, the device's frame, fixed to it) from `start` to `end`.
    static func run(
        site: (name: String, latitude: Double, longitude: Double) = CalibrationSites.all[0], gyro: Bool = true, gyroBias: Double = 0.2, disturbance: Vector3 = Vector3(x: 30, y: 0, z: 0), start: Double = 40, end: Double = 50,
        duration: Double = 90, rate: Double = 4, seaway: Bool = true, flapping: (on: Double, period: Double)? = nil, also: ClosedRange<Double>? = nil,
        bounds: MagneticDisturbanceDetector.Bounds = .init()
    ) throws -> (Run, MagnetometerCalibration) {
        let home = CalibrationSites.field(CalibrationSites.all[0])
        var sensor = SimulatedMagnetometer(field: home, noise: 0.2, accelerationNoise: 0.02, seed: 5)
        sensor.hardIron = Vector3(x: 40, y: -25, z: 60)
        var calibrator = MagnetometerCalibrator(shape: .sphere, reference: .init(home))
        CalibrationSites.tumble(&sensor, 800, into: &calibrator)
        let calibration = try #require(calibrator.fit())
        let field = CalibrationSites.field(site)
        sensor.earthField = Vector3(x: 0, y: field.horizontalIntensity / 1000, z: -field.down / 1000)
        var fusion = CompassFusion(calibration: calibration, refines: true, orientation: .identity, accuracy: 1, bounds: bounds)
        var run = Run()
        for step in 0..<Int(duration * 20) {
            let time = Double(step) / 20
            let heading = Degrees.normalized(10 + rate * time) ?? 0
            let roll = seaway ? 10 * sin(2 * .pi * time / 6) : 0
            let pitch = seaway ? 3 * sin(2 * .pi * time / 4.5) : 0
            var reading = sensor.reading(heading: heading, pitch: pitch, roll: roll)
            if time >= start, time < end, flapping.map({ (time - start).truncatingRemainder(dividingBy: $0.period) < $0.on }) ?? true {
                reading.field = reading.field + disturbance
            } else if let also, also.contains(time) {
                reading.field = reading.field + disturbance
            }
            // The turn about the world's up, seen in the device's frame, plus the gyro's bias about its Z and a little noise.
            let toDevice = SimulatedMagnetometer.rotation(heading: heading, pitch: pitch, roll: roll).transposed
            let turn = toDevice * Vector3(x: 0, y: 0, z: -rate * .pi / 180)
            let rotation = turn + Vector3(x: 0, y: 0, z: -gyroBias * .pi / 180) + Vector3(x: 0, y: 0, z: sensor.uniform(-0.05...0.05) * .pi / 180)
            for output in fusion.take(raw: reading.field, acceleration: reading.acceleration, rotation: gyro ? rotation : nil, at: time) {
                switch output {
                case .heading(let magnetic, _, _, let accuracy):
                    run.headings.append((time, abs(Degrees.signedDifference(from: heading, to: magnetic)), accuracy))
                case .disturbanceBegan(let reason): run.began.append((time, reason))
                case .disturbanceEnded: run.ended.append(time)
                case .refined: run.refinedAt.append(time)
                case .gyroAloneLimitReached: run.limitAt.append(time)
                case .referenceTaken(let reason, let inDisturbance): run.taken.append((time, reason, inDisturbance))
                case .failure(let failure): Issue.record("no heading at \(time) s: \(failure)")
                }
            }
        }
        return (run, calibration)
    }

    @Test func aDisturbanceIsNamedWithinASecondAndTheGyroCarriesTheHeadingThroughIt() throws {
        let (run, calibration) = try Self.run()
        print(String(format: "disturbance: named after %.2f s (%@); p95 during %.2f°; RMS from 5 s after %.2f°; before %.2f°",
            (run.began.first?.time ?? .infinity) - 40, run.began.first?.reason ?? "never", run.percentile95(40...49.95), run.rms(55...65), run.rms(5...39.95)))
        #expect(run.began.count == 1, "\(run.began)")
        #expect(run.taken.isEmpty, "\(run.taken)")
        #expect(run.began.first.map { $0.time - 40 <= 1 } == true, "named at \(run.began.first?.time ?? -1) s")
        #expect(run.percentile95(40...49.95) <= 3, "p95 \(run.percentile95(40...49.95))° while disturbed")
        #expect(run.rms(55...65) <= 2, "RMS \(run.rms(55...65))° from 5 s after")
        #expect(run.ended.count == 1 && run.ended.first.map { $0 > 50 && $0 < 55 } == true, "ended at \(run.ended)")
        #expect(run.headings.filter { (40...49.95).contains($0.time) && $0.time > 40.5 }.allSatisfy { $0.accuracy >= 2 })
        #expect(run.headings.filter { $0.time < 40 || $0.time > 55 }.allSatisfy { $0.accuracy == 1 })
        #expect(run.refinedAt.allSatisfy { $0 < 40 || $0 > 50 }, "refined at \(run.refinedAt) with a disturbance in its samples")
        _ = calibration
    }

    @Test func withoutTheWatchTheSameDisturbanceTurnsTheHeadingAnywhere() throws {
        // The test above would fail without the detector: its bounds opened wide, the same run.
        let (run, _) = try Self.run(bounds: .init(strength: .infinity, inclination: .infinity, gyroDisagreement: .infinity))
        print(String(format: "no watch: p95 during %.1f°, RMS from 5 s after %.2f°", run.percentile95(40...49.95), run.rms(55...65)))
        #expect(run.began.isEmpty)
        #expect(run.percentile95(40...49.95) > 20)
    }

    @Test func aSeawayAloneRaisesNothing() throws {
        let (run, _) = try Self.run(disturbance: .zero, duration: 120)
        #expect(run.began.isEmpty, "\(run.began)")
        #expect(run.headings.allSatisfy { $0.accuracy == 1 })
        #expect(run.rms(10...120) < 1.5, "RMS \(run.rms(10...120))°")
    }

    @Test func withoutAGyroTheFaultAndAWideAccuracyAndNoRefinement() throws {
        let (run, _) = try Self.run(gyro: false)
        #expect(run.began.count == 1 && run.began.first.map { $0.time - 40 <= 1 } == true, "\(run.began)")
        let during = run.headings.filter { $0.time >= 40.5 && $0.time < 50 }
        #expect(!during.isEmpty && during.allSatisfy { $0.accuracy >= CompassFusion.disturbedAccuracy })
        #expect(run.refinedAt.allSatisfy { $0 < 40 || $0 > 50 })
        #expect(run.ended.count == 1)
    }

    @Test(arguments: [0.0, 0.2])
    func theGyroAloneCarriesItWithinItsSaidAccuracyForHalfAMinuteThenNothingUntilTheFieldIsBack(gyroBias: Double) throws {
        // Half a minute from the start: the bias is barely learned (a fifth of it at most).
        let (run, _) = try Self.run(gyroBias: gyroBias, start: 15, end: 100, duration: 120)
        let onset = try #require(run.began.first?.time)
        let limit = try #require(run.limitAt.first)
        #expect(abs(limit - onset - CompassFusion.gyroAloneLimit) < 1, "limit at \(limit) s, onset \(onset) s")
        #expect(run.headings.filter { $0.time > limit && $0.time < 100 }.isEmpty, "headings after the limit")
        let carried = run.headings.filter { $0.time > onset + 0.5 && $0.time < limit }
        let worst = carried.map { $0.error - $0.accuracy }.max() ?? .infinity
        print(String(format: "gyro alone, bias %.1f°/s: worst error %.2f° at the limit, said %.1f°", gyroBias, carried.last?.error ?? -1, carried.last?.accuracy ?? -1))
        #expect(worst <= 0, "a heading carried by the gyro \(worst)° beyond its said accuracy")
        #expect(run.ended.first.map { $0 > 100 && $0 < 105 } == true, "ended at \(run.ended)")
        #expect(run.rms(105...120) <= 2, "RMS \(run.rms(105...120))° after")
    }

    @Test func aCompassCalibratedElsewhereTakesTheFieldHereAtTheStartAndStillSeesADisturbance() throws {
        // Calibrated in the Solent (48.9 µT dipping 66°), sailing off Sydney (57.0 µT, −64°): the
        // calibration's hard and soft iron still hold, its strength and dip do not.
        let (run, _) = try Self.run(site: CalibrationSites.all[1])
        print("calibrated elsewhere: \(run.taken.first?.reason ?? "nothing taken")")
        #expect(run.taken.count == 1 && run.taken.first.map { $0.time >= 2 && $0.time < 2.1 && !$0.inDisturbance } == true, "\(run.taken)")
        #expect(run.began.count == 1 && run.began.first.map { $0.time - 40 <= 1 } == true, "\(run.began)")
        #expect(run.percentile95(40...49.95) <= 3)
        #expect(run.rms(55...65) <= 2)
    }

    @Test func aMagnetThereAtTheStartIsTakenForTheFieldThenTheEarthsAfterTwoMinutesOfDisturbance() throws {
        // Calm water, a steady course, a magnet on at the start: its field, steady, is taken as the
        // Earth's (it looks like a compass calibrated elsewhere). Switched off at 50 s, the field
        // is a disturbance; two minutes on, steady, the Earth's is taken and the headings are right.
        let (run, _) = try Self.run(start: 0, end: 50, duration: 220, rate: 0, seaway: false)
        print("a magnet at the start: \(run.taken.map { String(format: "%.1f s: ", $0.time) + $0.reason })")
        #expect(run.taken.count == 2, "\(run.taken)")
        #expect(run.taken.first.map { !$0.inDisturbance && $0.time < 2.1 } == true)
        let rebased = try #require(run.taken.last)
        #expect(rebased.inDisturbance && rebased.time >= 170 && rebased.time < 172, "\(rebased)")
        #expect(run.rms((rebased.time + 5)...220) <= 1, "RMS \(run.rms((rebased.time + 5)...220))° after")
    }

    @Test func aMotorSwitchedOnAndOffEveryFewSecondsIsOneFaultAndTheNextSaysHowManyWereCounted() throws {
        // On for 1 s of every 4 from 20 to 80 s; once more from 150 to 155 s, a minute and more after.
        let (run, _) = try Self.run(start: 20, end: 80, duration: 170, flapping: (1, 4), also: 150...155)
        print("flapping: \(run.began.count) raised (\(run.began.last?.reason ?? "")), \(run.ended.count) ends said; p95 \(run.percentile95(20...80))°")
        #expect(run.began.count == 2, "\(run.began.map(\.time))")
        #expect(run.began.first.map { $0.time < 21 } == true)
        #expect(run.began.last.map { $0.time >= 150 && $0.time < 151 && $0.reason.contains("after 14 more") } == true, "\(run.began.last.map { "\($0)" } ?? "")")
        #expect(run.ended.count == 2, "the ends of the two raised, no other: \(run.ended)")
        #expect(run.percentile95(20...80) <= 3, "p95 \(run.percentile95(20...80))°")
    }

    @Test func aClockThatDoesNotMoveThenMovesTakesTheStartsFieldAndNothingTraps() {
        var detector = MagneticDisturbanceDetector(calibration: nil)
        let field = Vector3(x: 0, y: 20, z: -45)
        let down = Vector3(x: 0, y: 0, z: 9.80665)
        for _ in 0..<100_000 { _ = detector.assess(field: field, acceleration: down, gyroDisagreement: nil, at: 5) }
        let after = detector.assess(field: field, acceleration: down, gyroDisagreement: nil, at: 8)
        #expect(after.referenceTaken != nil, "the start's field, from the samples kept, is taken")
        #expect(after.trustsMagnetometer)
        for time in [Double.nan, .infinity, -1] { _ = detector.assess(field: field, acceleration: down, gyroDisagreement: .nan, at: time) }
    }
}
