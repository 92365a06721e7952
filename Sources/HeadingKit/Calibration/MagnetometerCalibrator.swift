// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// Fits a ``MagnetometerCalibration`` to a magnetometer's samples, and says whether it is good
/// enough: pure, no I/O, bounded memory (at most ``capacity`` samples; when full, every other is
/// dropped and the spacing between kept samples grows, so a long session still spans all of it).
///
/// Two shapes:
/// - ``Shape/sphere``: the sensor turned every way (in the hand, or a small craft tumbled). A sphere
///   is fitted first (hard iron), by Levenberg–Marquardt on the distance of each sample from its
///   centre; with enough of the sphere covered, an ellipsoid follows from it (hard iron and a
///   symmetric soft iron, the radius held), as ArduPilot does.
/// - ``Shape/circle``: a boat that cannot tumble, turned through a full circle or more, level or
///   heeled. With the accelerometer giving down for each sample, the fit asks the corrected field's
///   horizontal part to keep one length and its vertical part one value: hard iron (the vertical
///   part seen only when the boat heeled both ways) and the soft iron in the horizontal plane.
///
/// ``assess(_:)`` holds a fit to documented bounds (``Bounds``): enough samples and coverage, a
/// residual small in degrees of heading, and, with a ``Reference`` from the World Magnetic Model, a
/// field strength and inclination like the model's — a fit far from them is refused, for what it
/// measured is a disturbance nearby, not the Earth's field.
public struct MagnetometerCalibrator: Sendable {
    /// How the sensor is moved.
    /// How the sensor is turned while it samples — not what is fitted, which the result's
    /// ``MagnetometerCalibration/mode`` says: a sphere of samples gives
    /// ``MagnetometerCalibration/Mode/ellipsoid``, or ``MagnetometerCalibration/Mode/hardIron`` when
    /// too little of it was covered for a soft iron; a circle gives ``MagnetometerCalibration/Mode/circle``.
    public enum Shape: String, Sendable, Hashable, CaseIterable {
        /// Turned every way: the samples lie on a sphere (an ellipsoid, with soft iron).
        case sphere
        /// Turned through a full circle about the vertical.
        case circle
    }

    /// The field the World Magnetic Model gives where the calibration is made.
    public struct Reference: Sendable, Hashable {
        /// The total intensity in µT.
        public var totalIntensity: Double
        /// The horizontal intensity in µT.
        public var horizontalIntensity: Double
        /// The inclination in degrees, down positive.
        public var inclination: Double

        /// The reference of a model's field.
        /// - Parameter field: The field, in nT.
        public init(_ field: WorldMagneticModel.Field) {
            totalIntensity = field.totalIntensity / 1000
            horizontalIntensity = field.horizontalIntensity / 1000
            inclination = field.inclination
        }
    }

    /// The bounds ``assess(_:)`` holds a fit to.
    public enum Bounds {
        /// The fewest samples.
        public static let minimumSamples = 100
        /// The least share of the sphere's 48 directions the corrected field must have pointed to.
        public static let sphereCoverage = 0.7
        /// The least share of the circle's 36 sectors of 10°: all of them, a full turn.
        public static let circleCoverage = 1.0
        /// The largest heading error the residual may amount to, in degrees.
        public static let headingError = 2.0
        /// The largest difference of the field strength from the model's, as a share of it (±25 %:
        /// a sensor's gain tolerance and a hull's shielding stay inside; a magnet nearby does not).
        public static let fieldStrength = 0.25
        /// The largest difference of the inclination from the model's, in degrees.
        public static let inclination = 10.0
        /// How many robust standard deviations (1.4826 times the median error's size) a sample may be off a
        /// first fit before it is set aside, when it is also more than 1 % of the field off.
        public static let outlierDeviations = 5.0
        /// The largest share of the samples that may be set aside; with more off the fit, none is.
        public static let outlierShare = 0.05
        /// Without a reference: the Earth's field anywhere, in µT (about 22–67).
        public static let earthField = 20.0...70.0
    }

    /// Whether a fit may be used.
    public enum Verdict: Sendable, Hashable {
        /// It may.
        case good
        /// Not yet: more samples, coverage or steadiness needed, each reason a sentence.
        case notEnough([String])
        /// No: what it measured is not the Earth's field, each reason a sentence.
        case refused([String])

        /// Whether it is ``good``.
        public var isGood: Bool { self == .good }
        /// The reasons, empty when good.
        public var reasons: [String] {
            switch self {
            case .good: []
            case .notEnough(let reasons), .refused(let reasons): reasons
            }
        }
    }

    /// A sample kept: the field in µT and down (a unit vector) in the device frame.
    struct Sample: Sendable, Hashable {
        var field: Vector3
        var down: Vector3

        /// Down as a unit vector from the accelerometer's reading (+g up at rest): straight down the
        /// device's -Z without one (taken as level), `nil` in free fall or for a reading that is not finite.
        static func down(from acceleration: Vector3?) -> Vector3? {
            guard let acceleration else { return Vector3(x: 0, y: 0, z: -1) }
            let gravity = acceleration.length
            guard acceleration.isFinite, gravity >= TiltCompensation.minimumGravity else { return nil }
            return acceleration * (-1 / gravity)
        }
    }

    /// How the sensor is moved.
    public let shape: Shape
    /// The model's field here, if the position is known.
    public let reference: Reference?
    /// The most samples kept.
    public let capacity: Int
    /// The device the calibration is for.
    public var device: String?
    private(set) var samples: [Sample] = []
    private var spacing = 0.5
    private var tiltSeen = false
    private var firstDown: Vector3?

    /// Creates a calibrator.
    /// - Parameters:
    ///   - shape: How the sensor is moved.
    ///   - reference: The model's field here, or `nil` (then only the Earth's range is checked).
    ///   - capacity: The most samples kept (at least 200). Default 3,000.
    ///   - device: The device the calibration is for.
    public init(shape: Shape, reference: Reference? = nil, capacity: Int = 3000, device: String? = nil) {
        self.shape = shape
        self.reference = reference
        self.capacity = max(200, capacity)
        self.device = device
        samples.reserveCapacity(self.capacity)
    }

    /// The samples kept so far.
    public var sampleCount: Int { samples.count }

    /// Offers a sample; it is kept when it is far enough from the last one kept.
    /// - Parameters:
    ///   - field: The field in µT, device frame.
    ///   - acceleration: The acceleration in m/s² (+g up at rest), or `nil` without an accelerometer (taken as level).
    /// - Returns: Whether it was kept (not when non-finite, in free fall, or too near the last).
    @discardableResult
    public mutating func add(field: Vector3, acceleration: Vector3?) -> Bool {
        guard field.isFinite, field.length > 0.01, field.length < 10_000, let down = Sample.down(from: acceleration) else { return false }
        if let last = samples.last, (last.field - field).length < spacing { return false }
        if let firstDown {
            if firstDown.dot(down) < cos(10 * Double.pi / 180) { tiltSeen = true }
        } else {
            firstDown = down
        }
        if samples.count >= capacity {
            samples = samples.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            spacing *= 1.5
        }
        samples.append(Sample(field: field, down: down))
        return true
    }

    /// The best fit of the samples so far, `nil` with fewer than 10.
    ///
    /// Samples far off a first fit — more than ``Bounds/outlierDeviations`` robust standard deviations
    /// and 1 % of the field (a glitch, a jolt, axes read across a fast turn) — are set aside and the fit is
    /// made again without them, when they are at most ``Bounds/outlierShare`` of the samples; more than
    /// that is not a glitch, and all of them stay (the residual then says so). The calibration's
    /// ``MagnetometerCalibration/samples`` counts the samples it was fitted to: ``sampleCount`` less it
    /// is how many were set aside.
    /// - Parameter date: When it is made.
    public func fit(at date: Date = Date()) -> MagnetometerCalibration? {
        guard samples.count >= 10 else { return nil }
        let first = fit(samples, at: date)
        guard let kept = Self.withoutOutliers(samples, of: first) else { return first }
        return fit(kept, at: date)
    }

    private func fit(_ samples: [Sample], at date: Date) -> MagnetometerCalibration {
        switch shape {
        case .sphere: fitSphereThenEllipsoid(samples, at: date)
        case .circle: fitCircle(samples, at: date)
        }
    }

    /// The samples within the bound of `calibration`, or `nil` when none is outside it or too many are.
    static func withoutOutliers(_ samples: [Sample], of calibration: MagnetometerCalibration) -> [Sample]? {
        let errors = samples.map { abs(error(of: $0, corrected: calibration)) }
        guard errors.allSatisfy(\.isFinite) else { return nil }
        let median = errors.sorted()[errors.count / 2]
        // For errors normally spread about zero, the median of their sizes is 0.6745 standard deviations.
        let bound = max(Bounds.outlierDeviations * 1.4826 * median, 0.01 * calibration.fieldStrength)
        let outliers = errors.count { $0 > bound }
        guard outliers > 0, Double(outliers) <= Bounds.outlierShare * Double(samples.count), samples.count - outliers >= 10 else { return nil }
        return zip(samples, errors).filter { $0.1 <= bound }.map(\.0)
    }

    /// How far one sample, corrected, is from the fit: its length (a circle's horizontal part) less the field's, in µT.
    static func error(of sample: Sample, corrected calibration: MagnetometerCalibration) -> Double {
        let u = calibration.corrected(sample.field)
        guard calibration.mode == .circle else { return u.length - calibration.fieldStrength }
        return (u - sample.down * u.dot(sample.down)).length - calibration.fieldStrength
    }

    /// The share of the sphere's 48 directions (or the circle's 36 sectors) the samples cover, corrected by `calibration`.
    /// - Parameter calibration: The correction.
    public func coverage(of calibration: MagnetometerCalibration) -> Double {
        Self.coverage(of: samples, corrected: calibration, shape: shape)
    }

    /// Holds a fit to ``Bounds``.
    /// - Parameter calibration: The fit, or `nil` when there is none yet.
    /// - Returns: Whether it may be used, and why not.
    public func assess(_ calibration: MagnetometerCalibration?) -> Verdict {
        guard let calibration else { return .notEnough(["\(samples.count) samples so far (\(Bounds.minimumSamples) needed)"]) }
        var missing: [String] = []
        if calibration.samples < Bounds.minimumSamples {
            missing.append("\(calibration.samples) samples so far (\(Bounds.minimumSamples) needed)")
        }
        switch shape {
        case .sphere where calibration.coverage < Bounds.sphereCoverage:
            missing.append(
                "\(Self.percent(calibration.coverage)) of the sphere covered (\(Self.percent(Bounds.sphereCoverage)) needed): "
                    + "turn it through the directions not yet seen, upside down too")
        case .circle where calibration.coverage < Bounds.circleCoverage:
            let sectors = Int((calibration.coverage * 36).rounded())
            missing.append("\(sectors) of 36 sectors of 10° covered: keep turning, a full circle")
        default: break
        }
        if calibration.headingError > Bounds.headingError {
            missing.append(
                String(format: "the fit's residual of %.2f µT amounts to %.1f° of heading (%.0f° at most): ", calibration.residual, calibration.headingError, Bounds.headingError)
                    + "move it more slowly, away from moving iron and wiring")
        }
        var refusals: [String] = []
        let strength = calibration.fieldStrength
        if let reference {
            let expected = calibration.mode == .circle ? reference.horizontalIntensity : reference.totalIntensity
            let what = calibration.mode == .circle ? "horizontal field" : "field"
            let difference = (strength - expected) / expected
            if abs(difference) > Bounds.fieldStrength {
                refusals.append(
                    String(format: "the %@ measures %.1f µT, the World Magnetic Model %.1f µT here (%+.0f %%, more than ±%.0f %%): ", what, strength, expected, difference * 100, Bounds.fieldStrength * 100)
                        + "a magnetic disturbance nearby (iron, a magnet, a motor, a loudspeaker), or a wrong position")
            }
            if let inclination = calibration.inclination, abs(inclination - reference.inclination) > Bounds.inclination {
                refusals.append(
                    String(format: "the field's inclination measures %.1f°, the model's %.1f° (more than %.0f° apart): ", inclination, reference.inclination, Bounds.inclination)
                        + "a magnetic disturbance nearby, or the accelerometer is not beside the magnetometer")
            }
        } else if calibration.mode != .circle, !Bounds.earthField.contains(strength) {
            refusals.append(
                String(format: "the field measures %.1f µT, outside the Earth's %.0f–%.0f µT: a magnetic disturbance nearby, or a wrong scale", strength, Bounds.earthField.lowerBound, Bounds.earthField.upperBound))
        }
        if !missing.isEmpty { return .notEnough(missing + refusals) }
        if !refusals.isEmpty { return .refused(refusals) }
        return .good
    }

    // MARK: - The fits

    private func fitSphereThenEllipsoid(_ samples: [Sample], at date: Date) -> MagnetometerCalibration {
        let fields = samples.map(\.field)
        let start = Self.midpoint(of: fields)
        let radius = fields.reduce(0) { $0 + ($1 - start).length } / Double(fields.count)
        let sphere = LevenbergMarquardt.minimize([start.x, start.y, start.z, radius], residualCount: fields.count) { p, residuals in
            let centre = Vector3(x: p[0], y: p[1], z: p[2])
            for (i, field) in fields.enumerated() { residuals[i] = (field - centre).length - p[3] }
        }
        let p = sphere.parameters
        var calibration = MagnetometerCalibration(
            offset: Vector3(x: p[0], y: p[1], z: p[2]), mode: .hardIron, fieldStrength: abs(p[3]), samples: fields.count, date: date, device: device
        )
        calibration.coverage = Self.coverage(of: samples, corrected: calibration, shape: shape)
        if calibration.coverage >= 0.5, fields.count >= 50 {
            let radius = abs(p[3])
            let ellipsoid = LevenbergMarquardt.minimize([p[0], p[1], p[2], 1, 1, 1, 0, 0, 0], residualCount: fields.count) { q, residuals in
                let centre = Vector3(x: q[0], y: q[1], z: q[2])
                let matrix = Self.symmetric(q[3], q[4], q[5], q[6], q[7], q[8])
                for (i, field) in fields.enumerated() { residuals[i] = (matrix * (field - centre)).length - radius }
            }
            let q = ellipsoid.parameters
            let candidate = MagnetometerCalibration(
                offset: Vector3(x: q[0], y: q[1], z: q[2]), softIron: Self.symmetric(q[3], q[4], q[5], q[6], q[7], q[8]),
                mode: .ellipsoid, fieldStrength: radius, samples: fields.count, date: date, device: device
            )
            if candidate.problem == nil, ellipsoid.cost <= sphere.cost {
                calibration = candidate
            }
        }
        return assessed(calibration, samples: samples)
    }

    private func fitCircle(_ samples: [Sample], at date: Date) -> MagnetometerCalibration {
        let start = Self.midpoint(of: samples.map(\.field))
        func corrected(_ p: [Double], _ field: Vector3) -> Vector3 {
            let v = field - Vector3(x: p[0], y: p[1], z: p[2])
            return Vector3(x: p[3] * v.x + p[5] * v.y, y: p[5] * v.x + p[4] * v.y, z: v.z)
        }
        var horizontal = 0.0, vertical = 0.0
        let initial = [start.x, start.y, 0, 1, 1, 0, 0, 0]
        for sample in samples {
            let u = corrected(initial, sample.field)
            let down = u.dot(sample.down)
            vertical += down
            horizontal += (u - sample.down * down).length
        }
        let n = Double(samples.count)
        let solution = LevenbergMarquardt.minimize(
            [start.x, start.y, 0, 1, 1, 0, horizontal / n, vertical / n], residualCount: 2 * samples.count
        ) { p, residuals in
            for (i, sample) in samples.enumerated() {
                let u = corrected(p, sample.field)
                let down = u.dot(sample.down)
                residuals[2 * i] = (u - sample.down * down).length - p[6]
                residuals[2 * i + 1] = down - p[7]
            }
        }
        let p = solution.parameters
        let calibration = MagnetometerCalibration(
            offset: Vector3(x: p[0], y: p[1], z: p[2]), softIron: Self.symmetric(p[3], p[4], 1, p[5], 0, 0), mode: .circle,
            fieldStrength: abs(p[6]), samples: samples.count, date: date, device: device
        )
        return assessed(calibration, samples: samples)
    }

    /// The calibration with its residual, heading error, inclination and coverage over `samples` filled in.
    private func assessed(_ calibration: MagnetometerCalibration, samples: [Sample]) -> MagnetometerCalibration {
        var calibration = calibration
        var squares = 0.0, dips = 0.0
        for sample in samples {
            let u = calibration.corrected(sample.field)
            let error = Self.error(of: sample, corrected: calibration)
            squares += error * error
            dips += asin(max(-1, min(1, u.dot(sample.down) / max(u.length, 1e-9))))
        }
        let n = Double(max(samples.count, 1))
        calibration.residual = (squares / n).squareRoot()
        let measuredInclination = dips / n * 180 / .pi
        // The inclination is measured only where down was seen: an accelerometer and, for a circle, heel both ways.
        let hasAccelerometer = samples.contains { $0.down != Vector3(x: 0, y: 0, z: -1) }
        calibration.inclination = hasAccelerometer && (calibration.mode != .circle || tiltSeen) ? measuredInclination : nil
        let horizontal: Double =
            switch calibration.mode {
            case .circle: calibration.fieldStrength
            default: reference?.horizontalIntensity ?? calibration.fieldStrength * cos((calibration.inclination ?? 60) * .pi / 180)
            }
        calibration.headingError = atan(calibration.residual / max(horizontal, 1e-6)) * 180 / .pi
        calibration.coverage = Self.coverage(of: samples, corrected: calibration, shape: shape)
        return calibration
    }

    // MARK: - Coverage

    /// 48 directions spread evenly over the sphere (a Fibonacci lattice).
    private static let directions: [Vector3] = (0..<48).map { i in
        let z = 1 - (2 * Double(i) + 1) / 48
        let radius = (1 - z * z).squareRoot()
        let angle = Double(i) * Double.pi * (3 - 5.0.squareRoot())
        return Vector3(x: radius * cos(angle), y: radius * sin(angle), z: z)
    }

    static func coverage(of samples: [Sample], corrected calibration: MagnetometerCalibration, shape: Shape) -> Double {
        var hit = [Bool](repeating: false, count: shape == .sphere ? directions.count : 36)
        for sample in samples {
            let u = calibration.corrected(sample.field)
            switch shape {
            case .sphere:
                let length = u.length
                guard length > 0 else { continue }
                var best = 0, bestDot = -2.0
                for (index, direction) in directions.enumerated() {
                    let dot = direction.dot(u) / length
                    if dot > bestDot { (best, bestDot) = (index, dot) }
                }
                hit[best] = true
            case .circle:
                guard let attitude = try? TiltCompensation.attitude(field: u, acceleration: sample.down * -9.80665) else { continue }
                hit[min(35, Int(attitude.heading / 10))] = true
            }
        }
        return Double(hit.filter { $0 }.count) / Double(hit.count)
    }

    // MARK: - Helpers

    private static func midpoint(of fields: [Vector3]) -> Vector3 {
        var low = fields[0], high = fields[0]
        for field in fields {
            low = Vector3(x: min(low.x, field.x), y: min(low.y, field.y), z: min(low.z, field.z))
            high = Vector3(x: max(high.x, field.x), y: max(high.y, field.y), z: max(high.z, field.z))
        }
        return (low + high) * 0.5
    }

    private static func symmetric(_ xx: Double, _ yy: Double, _ zz: Double, _ xy: Double, _ xz: Double, _ yz: Double) -> Matrix3 {
        Matrix3(Vector3(x: xx, y: xy, z: xz), Vector3(x: xy, y: yy, z: yz), Vector3(x: xz, y: yz, z: zz))
    }

    private static func percent(_ share: Double) -> String { "\(Int((share * 100).rounded())) %" }
}
