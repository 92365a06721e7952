// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One IIO compass's samples made headings: the calibration (refined at sea when asked), the
/// mounting, tilt compensation, the gyro's fusion and the watch for magnetic disturbance. Pure: the
/// source reads the devices and hands each sample here; tests hand it simulated ones.
///
/// In a disturbance (``MagneticDisturbanceDetector``) the magnetometer is not trusted: with a gyro
/// the heading is carried by the gyro alone, its accuracy widened by 1° and ``driftAllowance`` a
/// second, for at most ``gyroAloneLimit``, after which no heading is given (the source goes stale
/// rather than wrong); without one, the magnetometer's own heading goes on with the accuracy
/// ``disturbedAccuracy``. Either way a heading in a disturbance says an accuracy wider than a
/// trusted one's (and is still a compass's: the deviation card applies to it as to the others). A
/// sample in a disturbance never refines the calibration.
package struct CompassFusion: Sendable {
    /// How long the gyro alone may carry the heading, seconds: 30. Its drift is its bias (the
    /// reading at rest) times the time: a MEMS gyro's is 0.1–1°/s out of the box, learned here to a
    /// fraction of that while the magnetometer is trusted; past 30 s an error in it has grown past
    /// what a heading may say and still be useful.
    package static let gyroAloneLimit = 30.0
    /// How much a heading carried by the gyro alone widens its accuracy, degrees a second: 0.2 (so
    /// that a bias of 0.2°/s not learned at all is inside it, at 7° over the base at the limit).
    package static let driftAllowance = 0.2
    /// The accuracy of a magnetometer's own heading in a disturbance, degrees: 90 (a magnet as
    /// strong as the Earth's horizontal field turns the heading anywhere).
    package static let disturbedAccuracy = 90.0
    /// How long after a disturbance ends a new one is counted rather than raised, seconds: 60 (a
    /// motor switched on and off every few seconds is one fault, not one every few seconds). Each
    /// end starts it again; the next one raised says how many were counted.
    package static let quietAfterEnd = 60.0

    /// What one sample gave.
    package enum Output: Sendable {
        /// A heading: magnetic, and the attitude when an accelerometer was read.
        case heading(magnetic: Double, pitch: Double?, roll: Double?, accuracy: Double)
        /// The calibration was refined at sea.
        case refined(CalibrationRefiner.Refinement)
        /// A disturbance was raised: what is beyond which bound.
        case disturbanceBegan(String)
        /// The disturbance ended after this many seconds.
        case disturbanceEnded(Double)
        /// A field was taken as the Earth's (``MagneticDisturbanceDetector``): at the start, or
        /// (`inDisturbance`) after a long disturbance with a steady field.
        case referenceTaken(String, inDisturbance: Bool)
        /// The gyro has carried the heading alone for ``gyroAloneLimit``: no heading until the field is back.
        case gyroAloneLimitReached
        /// The field and gravity give no heading.
        case failure(TiltCompensation.Failure)
    }

    /// The calibration in force.
    private var calibration: MagnetometerCalibration?
    private var refiner: CalibrationRefiner?
    private let orientation: Matrix3
    private var accuracy: Double
    private var filter = GyroHeadingFilter()
    private var detector: MagneticDisturbanceDetector
    private var lastTime: Double?
    private var coastingSince: Double?
    private var limitReported = false
    /// A trusted magnetometer heading and its time: the gyro's measure compares the magnetometer
    /// with it carried by the gyro's turn since (``turned``). Moved on every ``gyroWindow`` while
    /// the magnetometer is trusted, held while it is not.
    private var anchor: (heading: Double, time: Double)?
    private var turned = 0.0
    /// Until when a new disturbance is counted rather than raised.
    private var quietUntil: Double?
    /// Disturbances counted, not raised, since the last one raised.
    private var unraised = 0
    /// Whether the disturbance under way was raised (its end is then said).
    private var raised = false

    /// How long the gyro's measure looks back while the magnetometer is trusted, seconds: 0.5. A
    /// disturbance's onset turns the magnetometer's heading in one sample; a gyro that disagrees
    /// with a still magnetometer by a steady few degrees a second (a bias) does not add up past the bound.
    package static let gyroWindow = 0.5

    /// Creates the fusion of one compass.
    /// - Parameters:
    ///   - calibration: The calibration in force, if any.
    ///   - refines: Whether to refine it at sea.
    ///   - orientation: The mounting, device frame to the boat's.
    ///   - accuracy: The accuracy of a trusted heading, degrees.
    ///   - bounds: The disturbance's bounds.
    package init(
        calibration: MagnetometerCalibration?, refines: Bool, orientation: Matrix3, accuracy: Double,
        bounds: MagneticDisturbanceDetector.Bounds = .init()
    ) {
        self.calibration = calibration
        refiner = refines ? calibration.map { CalibrationRefiner(calibration: $0) } : nil
        self.orientation = orientation
        self.accuracy = accuracy
        detector = MagneticDisturbanceDetector(calibration: calibration, bounds: bounds)
    }

    /// The accuracy of a trusted heading, after a refinement (the source's status says it).
    /// - Parameter accuracy: Degrees.
    package mutating func setAccuracy(_ accuracy: Double) { self.accuracy = accuracy }

    /// Takes one sample.
    /// - Parameters:
    ///   - raw: The magnetometer's field in µT, device frame, as read.
    ///   - acceleration: The accelerometer's reading in m/s², device frame, if one was read.
    ///   - rotation: The gyroscope's reading in rad/s, device frame, if one was read.
    ///   - time: The sample's time, seconds on a steady clock.
    /// - Returns: What it gave, in order.
    package mutating func take(raw: Vector3, acceleration deviceAcceleration: Vector3?, rotation deviceRotation: Vector3?, at time: Double) -> [Output] {
        var outputs: [Output] = []
        let interval = lastTime.map { time - $0 } ?? 0
        lastTime = time
        var field = raw
        if let calibration { field = calibration.corrected(field) }
        field = orientation * field
        let acceleration = deviceAcceleration.map { orientation * $0 }
        let up = acceleration ?? Vector3(x: 0, y: 0, z: 9.80665)
        let rate = deviceRotation.flatMap { GyroHeadingFilter.rateOfTurn(angularVelocity: orientation * $0, up: up) }
        let attitude: TiltCompensation.Attitude
        do throws(TiltCompensation.Failure) {
            attitude = try TiltCompensation.attitude(field: field, acceleration: up)
        } catch {
            filter.reset()
            return [.failure(error)]
        }
        // The gyro's measure, only while it carries a heading it can vouch for.
        let carried = coastingSince.map { time - $0 < Self.gyroAloneLimit } ?? true
        if let rate, interval > 0, interval <= 1, carried {
            turned += (rate - filter.bias) * interval
        } else {
            anchor = nil
        }
        let disagreement = anchor.map { Degrees.signedDifference(from: $0.heading + turned, to: attitude.heading) }
        let assessment = detector.assess(field: field, acceleration: acceleration, gyroDisagreement: disagreement, at: time)
        if assessment.trustsMagnetometer, rate != nil, anchor.map({ time - $0.time >= Self.gyroWindow }) ?? true {
            anchor = (attitude.heading, time)
            turned = 0
        }
        if let reason = assessment.began {
            raised = quietUntil.map { time >= $0 } ?? true
            if raised {
                let counted = unraised == 0 ? "" : " (after \(unraised) more within a minute of one another, counted, not raised one by one)"
                unraised = 0
                outputs.append(.disturbanceBegan(reason + counted))
            } else {
                unraised += 1
            }
        }
        if let taken = assessment.referenceTaken { outputs.append(.referenceTaken(taken, inDisturbance: assessment.referenceTakenInDisturbance)) }
        if let seconds = assessment.endedAfter {
            quietUntil = time + Self.quietAfterEnd
            if raised, !assessment.referenceTakenInDisturbance { outputs.append(.disturbanceEnded(seconds)) }
            raised = false
        }
        let pitch = acceleration == nil ? nil : attitude.pitch
        let roll = acceleration == nil ? nil : attitude.roll
        if assessment.trustsMagnetometer {
            if let refinement = refiner?.add(field: raw, acceleration: deviceAcceleration) {
                calibration = refinement.current
                outputs.append(.refined(refinement))
            }
            if !carried { filter.reset() }  // the gyro's heading is no longer vouched for: start from the magnetometer's
            coastingSince = nil
            limitReported = false
            let heading = rate == nil ? attitude.heading : filter.update(magneticHeading: attitude.heading, rateOfTurn: rate, interval: interval)
            outputs.append(.heading(magnetic: heading, pitch: pitch, roll: roll, accuracy: accuracy))
            return outputs
        }
        guard rate != nil || filter.heading != nil else {
            // No gyro: the magnetometer's own heading, said to be untrustworthy.
            let accuracy = assessment.isDisturbed ? max(accuracy, Self.disturbedAccuracy) : accuracy
            outputs.append(.heading(magnetic: attitude.heading, pitch: pitch, roll: roll, accuracy: accuracy))
            return outputs
        }
        let since = coastingSince ?? time
        coastingSince = since
        guard time - since < Self.gyroAloneLimit else {
            if !limitReported {
                limitReported = true
                outputs.append(.gyroAloneLimitReached)
            }
            return outputs
        }
        guard let heading = filter.coast(rateOfTurn: rate, interval: interval) else {
            // Nothing to carry (no heading before, or a gap): the magnetometer's own, said to be untrustworthy.
            outputs.append(.heading(magnetic: attitude.heading, pitch: pitch, roll: roll, accuracy: max(accuracy, Self.disturbedAccuracy)))
            return outputs
        }
        outputs.append(
            .heading(magnetic: heading, pitch: pitch, roll: roll, accuracy: accuracy + 1 + Self.driftAllowance * (time - since)))
        return outputs
    }
}
