// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Keeps a calibration in force up to date at sea, pypilot's idea: a boat's hard iron drifts (a
/// tool box moved, an engine's magnetism), and every full turn the boat makes shows where it now
/// is. The refiner keeps a window of recent samples (at most ``capacity``, each at least 1 µT from
/// the last), and each time ``evaluationInterval`` new ones have come and the window covers a full
/// circle (36 sectors of 10°), it fits the hard iron alone — the soft iron in force kept — and
/// adopts it only when its fit on the same samples is better than the calibration in force (its
/// heading error at most 80 % of the one in force, and at least 0.1° less) and the move is no more
/// than half the horizontal field (a jump that large is a disturbance passing, not drift). The
/// vertical hard iron moves only when the window saw heel both ways (10° or more apart).
///
/// Pure and bounded: no I/O, the window's storage reserved once.
public struct CalibrationRefiner: Sendable {
    /// The calibration in force, refined.
    public private(set) var calibration: MagnetometerCalibration
    /// The most samples in the window.
    public let capacity: Int
    /// New samples between two evaluations.
    public let evaluationInterval: Int
    private var window: [MagnetometerCalibrator.Sample] = []
    private var newSinceEvaluation = 0
    private var inverseSoftIron: Matrix3

    /// What an adopted refinement changed.
    public struct Refinement: Sendable, Hashable {
        /// The calibration before.
        public var previous: MagnetometerCalibration
        /// The calibration now.
        public var current: MagnetometerCalibration
        /// The heading error the calibration in force had on the window, in degrees.
        public var previousError: Double
    }

    /// Creates a refiner.
    /// - Parameters:
    ///   - calibration: The calibration in force.
    ///   - capacity: The most samples in the window (at least 100). Default 720.
    ///   - evaluationInterval: New samples between evaluations (at least 10). Default 100.
    public init(calibration: MagnetometerCalibration, capacity: Int = 720, evaluationInterval: Int = 100) {
        self.calibration = calibration
        self.capacity = max(100, capacity)
        self.evaluationInterval = max(10, evaluationInterval)
        inverseSoftIron = calibration.softIron.inverse ?? .identity
        window.reserveCapacity(self.capacity)
    }

    /// Offers a sample.
    /// - Parameters:
    ///   - field: The field as read, in µT, device frame (before any calibration).
    ///   - acceleration: The acceleration in m/s², or `nil` (taken as level).
    /// - Returns: The refinement, when this sample's evaluation adopted one.
    public mutating func add(field: Vector3, acceleration: Vector3?) -> Refinement? {
        guard field.isFinite, let down = MagnetometerCalibrator.Sample.down(from: acceleration) else { return nil }
        // Kept in the soft iron's space: u = W × raw, so that the corrected field is u − W × offset.
        let u = calibration.softIron * field
        if let last = window.last, (last.field - u).length < 1 { return nil }
        if window.count >= capacity { window.removeFirst() }
        window.append(MagnetometerCalibrator.Sample(field: u, down: down))
        newSinceEvaluation += 1
        guard newSinceEvaluation >= evaluationInterval else { return nil }
        newSinceEvaluation = 0
        return evaluate()
    }

    private mutating func evaluate() -> Refinement? {
        let current = calibration.softIron * calibration.offset
        let aboutCurrent = MagnetometerCalibration(offset: current, mode: .circle, fieldStrength: 1)
        guard MagnetometerCalibrator.coverage(of: window, corrected: aboutCurrent, shape: .circle) == 1 else { return nil }
        let samples = window
        let start = Self.horizontalAndVertical(samples, centre: current)
        let before = Self.headingError(samples, centre: current, horizontal: start.horizontal)
        var tiltSeen = false
        if let first = samples.first?.down { tiltSeen = samples.contains { $0.down.dot(first) < cos(10 * Double.pi / 180) } }
        let solution = LevenbergMarquardt.minimize(
            [current.x, current.y, current.z, start.horizontal, start.vertical], residualCount: 2 * samples.count
        ) { p, residuals in
            let centre = Vector3(x: p[0], y: p[1], z: p[2])
            for (i, sample) in samples.enumerated() {
                let v = sample.field - centre
                let down = v.dot(sample.down)
                residuals[2 * i] = (v - sample.down * down).length - p[3]
                residuals[2 * i + 1] = down - p[4]
            }
        }
        let p = solution.parameters
        let centre = Vector3(x: p[0], y: p[1], z: tiltSeen ? p[2] : current.z)
        let horizontal = abs(p[3])
        let after = Self.headingError(samples, centre: centre, horizontal: horizontal)
        guard after.isFinite, after <= 0.8 * before, before - after >= 0.1, (centre - current).length <= 0.5 * start.horizontal else { return nil }
        let previous = calibration
        calibration.offset = inverseSoftIron * centre
        calibration.headingError = after
        calibration.residual = after * Double.pi / 180 * horizontal
        calibration.date = Date()
        window.removeAll(keepingCapacity: true)
        return Refinement(previous: previous, current: calibration, previousError: before)
    }

    /// The mean horizontal length and vertical part of the samples about `centre`.
    private static func horizontalAndVertical(_ samples: [MagnetometerCalibrator.Sample], centre: Vector3) -> (horizontal: Double, vertical: Double) {
        var horizontal = 0.0, vertical = 0.0
        for sample in samples {
            let v = sample.field - centre
            let down = v.dot(sample.down)
            vertical += down
            horizontal += (v - sample.down * down).length
        }
        let n = Double(max(1, samples.count))
        return (horizontal / n, vertical / n)
    }

    /// The heading error the horizontal residuals about `centre` amount to, in degrees.
    private static func headingError(_ samples: [MagnetometerCalibrator.Sample], centre: Vector3, horizontal: Double) -> Double {
        var squares = 0.0
        for sample in samples {
            let v = sample.field - centre
            let error = (v - sample.down * v.dot(sample.down)).length - horizontal
            squares += error * error
        }
        let rms = (squares / Double(max(1, samples.count))).squareRoot()
        return atan(rms / max(horizontal, 1e-6)) * 180 / .pi
    }
}
