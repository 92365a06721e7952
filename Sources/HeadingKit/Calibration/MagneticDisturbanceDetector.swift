// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Watches a magnetometer for a field that is not the Earth's: a loudspeaker, a winch or a bow
/// thruster's motor switched on beside the compass. Pure: samples and times in, a verdict out.
///
/// Three measures, each against a bound (``Bounds``, with its reason):
/// - the field's **strength** against the reference (for a circle calibration, the horizontal
///   part): a field fixed to the boat adds to the Earth's;
/// - its **inclination** (the dip below the horizontal) against the reference: the Earth's dip does
///   not change over a voyage's hours, a nearby magnet's field points anywhere;
/// - the magnetometer's turn against the **gyro's** since a trusted heading (the caller measures
///   it): a disturbance that happens to leave strength and dip alone still turns the heading.
///
/// **The reference** is the calibration's strength and dip. Over the first ``Bounds/startup``
/// seconds the field is measured; when it was steady there and differs from the calibration's (a
/// compass calibrated elsewhere: the Earth's field is 25–65 µT from place to place), or there is
/// no calibration, the field at the start is taken instead (said in
/// ``Assessment/referenceTaken``). The reference then follows the trusted samples over ten minutes
/// (a voyage's change of place). Strength and dip are judged only while the accelerometer reads
/// gravity within 10 % (a jolt tilts "down").
///
/// A sample beyond any bound is not trusted at once (``Assessment/trustsMagnetometer``); the
/// disturbance is *raised* when samples stay beyond for ``Bounds/onset``, and *ends* when every
/// measure has stayed within half its bound for ``Bounds/settle`` (hysteresis: no fault flapping
/// at the edge of a bound). A disturbance that lasts ``Bounds/rebaseline`` with a field steady for
/// its last 30 s ends by that field being taken as the Earth's (a magnet left there for good, or a
/// reference that was wrong): said, because if a magnet is still there the headings are off.
public struct MagneticDisturbanceDetector: Sendable, Hashable {
    /// The bounds, and the times that go with them.
    public struct Bounds: Sendable, Hashable {
        /// The largest relative difference of the field's strength from the reference. Default
        /// 0.12 (12 %): a good calibration holds the strength within 2–3 % under heel and trim,
        /// and 12 % of the Earth's 25–65 µT is a magnet of 3–8 µT.
        public var strength: Double
        /// The largest difference of the inclination from the reference, degrees. Default 5°:
        /// tilt compensation on a moving boat leaves 1–2°.
        public var inclination: Double
        /// The largest difference between the magnetometer's turn and the gyro's, degrees.
        /// Default 10°: the two agree within 1–3° over half a second in a seaway.
        public var gyroDisagreement: Double
        /// How long samples must stay beyond a bound before the disturbance is raised, seconds.
        /// Default 0.3 s (the samples in between are already not trusted).
        public var onset: Double
        /// How long every measure must stay within half its bound before the disturbance ends,
        /// seconds. Default 2 s.
        public var settle: Double
        /// The seconds at the start whose field, if steady, may become the reference. Default 2.
        public var startup: Double
        /// How long a disturbance lasts before a steady field is taken as the Earth's, seconds. Default 120.
        public var rebaseline: Double

        /// Creates bounds.
        /// - Parameters:
        ///   - strength: The largest relative difference of strength. Default 0.12.
        ///   - inclination: The largest difference of inclination, degrees. Default 5.
        ///   - gyroDisagreement: The largest difference from the gyro's turn, degrees. Default 10.
        ///   - onset: Seconds beyond a bound before the disturbance is raised. Default 0.3.
        ///   - settle: Seconds within half the bounds before it ends. Default 2.
        ///   - startup: Seconds at the start whose steady field may become the reference. Default 2.
        ///   - rebaseline: Seconds of disturbance before a steady field is taken as the Earth's. Default 120.
        public init(
            strength: Double = 0.12, inclination: Double = 5, gyroDisagreement: Double = 10, onset: Double = 0.3, settle: Double = 2,
            startup: Double = 2, rebaseline: Double = 120
        ) {
            self.strength = strength
            self.inclination = inclination
            self.gyroDisagreement = gyroDisagreement
            self.onset = onset
            self.settle = settle
            self.startup = startup
            self.rebaseline = rebaseline
        }
    }

    /// What one sample says.
    public struct Assessment: Sendable, Hashable {
        /// Whether the sample's heading may be used (and the calibration refined with it).
        public var trustsMagnetometer = true
        /// Set on the sample that raises a disturbance: what is beyond which bound.
        public var began: String?
        /// Set on the sample that ends one: how long it lasted, seconds.
        public var endedAfter: Double?
        /// Whether a disturbance is raised (from `began` to `endedAfter`).
        public var isDisturbed = false
        /// Set when a field was taken as the reference: which, and why.
        public var referenceTaken: String?
        /// Whether `referenceTaken` ended a disturbance (a field taken after ``Bounds/rebaseline``).
        public var referenceTakenInDisturbance = false
    }

    /// The bounds.
    public var bounds: Bounds
    /// The reference strength in µT (its horizontal part for a circle calibration), or `nil` while unknown.
    public private(set) var referenceStrength: Double?
    /// Whether ``referenceStrength`` is the horizontal part.
    public let referenceIsHorizontal: Bool
    /// The reference inclination in degrees, down positive, or `nil` while unknown.
    public private(set) var referenceInclination: Double?

    private var firstTime: Double?
    private var lastTime: Double?
    private var startupSamples: [Measures] = []
    /// The most samples of the start kept: 2 s at the IIO source's highest rate (200 Hz) is 400.
    private static let maximumStartupSamples = 1_000
    private var startupDone = false
    private var beyondSince: Double?
    private var disturbedSince: Double?
    private var settledSince: Double?
    /// While disturbed: a short average of the field and since when samples have stayed near it.
    private var steady: Steady?

    private struct Steady: Sendable, Hashable {
        var measures: Measures
        var since: Double
    }

    /// One sample's strength and dip, when it has them.
    private struct Measures: Sendable, Hashable {
        var strength: Double?
        var dip: Double?
    }

    /// Creates a detector judging against `calibration`'s measures.
    /// - Parameters:
    ///   - calibration: The calibration in force, or `nil` (then the field at the start is the reference).
    ///   - bounds: The bounds.
    public init(calibration: MagnetometerCalibration?, bounds: Bounds = Bounds()) {
        self.bounds = bounds
        referenceStrength = calibration.map(\.fieldStrength).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        referenceIsHorizontal = calibration?.mode == .circle
        referenceInclination = calibration?.inclination
    }

    /// Whether a disturbance is raised.
    public var isDisturbed: Bool { disturbedSince != nil }

    /// Judges one sample.
    /// - Parameters:
    ///   - field: The calibrated field in µT (any frame the acceleration shares).
    ///   - acceleration: The accelerometer's reading in m/s², same frame, if one was read.
    ///   - gyroDisagreement: The magnetometer's turn less the gyro's since a trusted heading,
    ///     degrees, or `nil` when no gyro carries a heading to compare with.
    ///   - time: The sample's time, seconds on any steady clock.
    /// - Returns: The verdict.
    public mutating func assess(field: Vector3, acceleration: Vector3?, gyroDisagreement: Double?, at time: Double) -> Assessment {
        var assessment = Assessment()
        let measures = measure(field: field, acceleration: acceleration)
        let interval = lastTime.map { max(0, time - $0) } ?? 0
        lastTime = time
        let start = firstTime ?? time
        firstTime = start
        let starting = !startupDone && time - start < bounds.startup
        if !startupDone, !starting {
            startupDone = true
            assessment.referenceTaken = takeStartupReference()
        }
        // Bounded: a caller whose clock does not move (or a rate far above 200 Hz) keeps the first ones.
        if starting, startupSamples.count < Self.maximumStartupSamples { startupSamples.append(measures) }
        let excess = excess(of: starting ? Measures() : measures, gyroDisagreement: gyroDisagreement)

        if let since = disturbedSince {
            if excess.largest <= 0.5 {
                let settled = settledSince ?? time
                settledSince = settled
                if time - settled >= bounds.settle {
                    assessment.endedAfter = time - since
                    endDisturbance()
                    return assessment
                }
            } else {
                settledSince = nil
            }
            if let taken = rebaseline(measures, disturbedSince: since, at: time) {
                assessment.referenceTaken = taken
                assessment.referenceTakenInDisturbance = true
                assessment.endedAfter = time - since
                endDisturbance()
                return assessment
            }
            assessment.trustsMagnetometer = false
            assessment.isDisturbed = true
            return assessment
        }
        guard excess.largest > 1 else {
            beyondSince = nil
            follow(measures, interval: interval)
            return assessment
        }
        let beyond = beyondSince ?? time
        beyondSince = beyond
        assessment.trustsMagnetometer = false
        if time - beyond >= bounds.onset {
            disturbedSince = beyond
            steady = nil
            assessment.began = reason(excess.measure, measures, gyroDisagreement: gyroDisagreement)
            assessment.isDisturbed = true
        }
        return assessment
    }

    /// Forgets any disturbance (the devices were opened again); the reference stays.
    public mutating func reset() {
        endDisturbance()
        lastTime = nil
    }

    private mutating func endDisturbance() {
        beyondSince = nil
        disturbedSince = nil
        settledSince = nil
        steady = nil
    }

    /// The field's strength and dip, where "down" is gravity.
    private func measure(field: Vector3, acceleration: Vector3?) -> Measures {
        let length = field.length
        guard length > 0, length.isFinite else { return Measures() }
        var down: Vector3?
        if let acceleration {
            let g = acceleration.length
            if g.isFinite, abs(g - 9.80665) <= 0.981 { down = acceleration * (-1 / g) }
        }
        var measures = Measures()
        if !referenceIsHorizontal {
            measures.strength = length
        } else if let down {
            measures.strength = (field - down * field.dot(down)).length
        } else if acceleration == nil {
            measures.strength = (field.x * field.x + field.y * field.y).squareRoot()  // no accelerometer: level
        }
        if let down { measures.dip = asin(max(-1, min(1, field.dot(down) / length))) * 180 / .pi }
        return measures
    }

    /// Which measure is furthest beyond its bound, for the reason said when a disturbance begins.
    private enum Measure {
        case none, gyro, strength, dip
    }

    /// Each measure as a fraction of its bound (1 is at the bound), the largest, and which it is.
    /// No text: this runs at every sample, and the reason is made only when a disturbance begins.
    private func excess(of measures: Measures, gyroDisagreement: Double?) -> (largest: Double, measure: Measure) {
        var largest = 0.0
        var measure = Measure.none
        func consider(_ fraction: Double, _ which: Measure) {
            guard fraction.isFinite, fraction > largest else { return }
            largest = fraction
            measure = which
        }
        if let gyroDisagreement, gyroDisagreement.isFinite { consider(abs(gyroDisagreement) / bounds.gyroDisagreement, .gyro) }
        if let measured = measures.strength, let reference = referenceStrength { consider(abs(measured / reference - 1) / bounds.strength, .strength) }
        if let measured = measures.dip, let reference = referenceInclination { consider(abs(measured - reference) / bounds.inclination, .dip) }
        return (largest, measure)
    }

    /// What `measure` says of these measures, for a person.
    private func reason(_ measure: Measure, _ measures: Measures, gyroDisagreement: Double?) -> String {
        switch measure {
        case .gyro:
            String(format: "the magnetometer's heading turned %.0f° from the gyroscope's (bound %.0f°)", gyroDisagreement ?? 0, bounds.gyroDisagreement)
        case .strength:
            String(format: "the field is %.1f µT where %.1f µT is the Earth's (%+.0f %%; bound %.0f %%)",
                measures.strength ?? 0, referenceStrength ?? 0, ((measures.strength ?? 0) / (referenceStrength ?? 1) - 1) * 100, bounds.strength * 100)
        case .dip:
            String(format: "the field dips %.1f° where the Earth's dips %.1f° (bound %.0f°)", measures.dip ?? 0, referenceInclination ?? 0, bounds.inclination)
        case .none: ""
        }
    }

    /// At the end of the start: the field measured then, when it was steady and the reference is
    /// missing or differs from it by over half a bound.
    private mutating func takeStartupReference() -> String? {
        defer { startupSamples = [] }
        let strengths = startupSamples.compactMap(\.strength)
        let dips = startupSamples.compactMap(\.dip)
        guard strengths.count >= 5, let low = strengths.min(), let high = strengths.max(), low > 0 else { return nil }
        let strength = strengths.reduce(0, +) / Double(strengths.count)
        guard (high - low) / strength <= bounds.strength / 2 else { return nil }
        var dip: Double?
        if dips.count >= 5, let lowest = dips.min(), let highest = dips.max(), highest - lowest <= bounds.inclination / 2 {
            dip = dips.reduce(0, +) / Double(dips.count)
        }
        let strengthDiffers = referenceStrength.map { abs(strength / $0 - 1) > bounds.strength / 2 } ?? true
        let dipDiffers = dip.map { dip in referenceInclination.map { abs(dip - $0) > bounds.inclination / 2 } ?? true } ?? false
        guard strengthDiffers || dipDiffers else { return nil }
        let previous = Self.describe(strength: referenceStrength, dip: referenceInclination)
        referenceStrength = strength
        if let dip { referenceInclination = dip }
        let taken = Self.describe(strength: strength, dip: dip)
        return previous.isEmpty
            ? "the field at the start, \(taken), steady, is taken as the Earth's here"
            : "the field at the start, \(taken), steady, is taken as the Earth's here where the calibration measured \(previous) (calibrated elsewhere?)"
    }

    /// While disturbed: after ``Bounds/rebaseline``, a field steady for 30 s becomes the reference.
    private mutating func rebaseline(_ measures: Measures, disturbedSince since: Double, at time: Double) -> String? {
        guard let strength = measures.strength else { return nil }
        if var current = steady, let reference = current.measures.strength,
            abs(strength / reference - 1) <= bounds.strength / 4,
            (measures.dip ?? 0) - (current.measures.dip ?? 0) <= bounds.inclination / 4,
            (current.measures.dip ?? 0) - (measures.dip ?? 0) <= bounds.inclination / 4
        {
            current.measures.strength = reference + (strength - reference) * 0.05
            if let dip = measures.dip, let old = current.measures.dip { current.measures.dip = old + (dip - old) * 0.05 }
            steady = current
        } else {
            steady = Steady(measures: measures, since: time)
        }
        guard let current = steady, time - since >= bounds.rebaseline, time - current.since >= 30 else { return nil }
        let previous = Self.describe(strength: referenceStrength, dip: referenceInclination)
        referenceStrength = current.measures.strength
        if let dip = current.measures.dip { referenceInclination = dip }
        return String(format: "the field has been steady at %@ for %.0f s of a disturbance of %.0f s: taken as the Earth's here (it was %@); if a magnet is still near the compass, its headings are off",
            Self.describe(strength: current.measures.strength, dip: current.measures.dip), time - current.since, time - since, previous)
    }

    /// The reference follows the trusted samples over ten minutes.
    private mutating func follow(_ measures: Measures, interval: Double) {
        guard startupDone, interval > 0 else { return }
        let share = min(1, interval / 600)
        if let strength = measures.strength, let reference = referenceStrength { referenceStrength = reference + (strength - reference) * share }
        if let dip = measures.dip, let reference = referenceInclination { referenceInclination = reference + (dip - reference) * share }
    }

    private static func describe(strength: Double?, dip: Double?) -> String {
        switch (strength, dip) {
        case (let strength?, let dip?): String(format: "%.1f µT dipping %.1f°", strength, dip)
        case (let strength?, nil): String(format: "%.1f µT", strength)
        case (nil, let dip?): String(format: "a dip of %.1f°", dip)
        case (nil, nil): ""
        }
    }
}
