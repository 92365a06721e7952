// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A complementary filter of a magnetometer's heading with a gyroscope's rate of turn: the gyro
/// carries the heading from one sample to the next (so pitching, heel and the accelerometer's
/// jolts in a seaway, which swing the tilt-compensated heading for a moment, barely move it), and
/// the magnetometer pulls it back with the time constant ``timeConstant`` (so the gyro's drift
/// never builds up). The gyro's bias (its reading at rest) is learned on the side, as the mean of
/// the gyro's rate less the magnetometer's over ``biasTimeConstant``, so that the gyro alone can
/// carry the heading when the magnetometer is not to be trusted (``coast(rateOfTurn:interval:)``);
/// it does not change what ``update(magneticHeading:rateOfTurn:interval:)`` gives. Pure: headings
/// and rates in, a heading out.
///
/// The rate about the vertical is the gyro's vector along up: a turn to starboard (clockwise seen
/// from above) is a negative rotation about +Z in the right-handed device frame, a positive rate of turn.
public struct GyroHeadingFilter: Sendable, Hashable {
    /// Seconds over which the magnetometer corrects the gyro: longer rides out more of a seaway,
    /// shorter follows a magnetometer step sooner. Default 2 s.
    public var timeConstant: Double
    /// Seconds over which the gyro's bias is learned. Default 60 s.
    public var biasTimeConstant: Double
    /// The filtered heading in degrees, `nil` before the first update.
    public private(set) var heading: Double?
    /// The gyro's bias as learned so far, degrees a second (taken off its rate when it carries
    /// the heading alone).
    public private(set) var bias = 0.0
    /// The magnetometer's last heading, for the bias.
    private var lastMagneticHeading: Double?

    /// Creates a filter.
    /// - Parameters:
    ///   - timeConstant: Seconds over which the magnetometer corrects the gyro (at least 0.05). Default 2.
    ///   - biasTimeConstant: Seconds over which the gyro's bias is learned (at least 1). Default 60.
    public init(timeConstant: Double = 2, biasTimeConstant: Double = 60) {
        self.timeConstant = max(0.05, timeConstant)
        self.biasTimeConstant = max(1, biasTimeConstant)
    }

    /// The rate of turn about the vertical, degrees a second clockwise seen from above.
    /// - Parameters:
    ///   - angularVelocity: The gyroscope's reading in rad/s, device frame.
    ///   - up: Up in the device frame (the accelerometer's reading at rest), any length.
    /// - Returns: The rate, or `nil` when up has no length.
    public static func rateOfTurn(angularVelocity: Vector3, up: Vector3) -> Double? {
        let length = up.length
        guard length > 0, length.isFinite, angularVelocity.isFinite else { return nil }
        return -angularVelocity.dot(up) / length * 180 / .pi
    }

    /// Takes one sample.
    /// - Parameters:
    ///   - magneticHeading: The magnetometer's (tilt-compensated) heading in degrees.
    ///   - rateOfTurn: Degrees a second, clockwise; `nil` when the gyro gave none (the magnetometer's heading is taken).
    ///   - interval: Seconds since the last sample (at most 1 s is carried by the gyro).
    /// - Returns: The filtered heading in `[0, 360)`.
    public mutating func update(magneticHeading: Double, rateOfTurn: Double?, interval: Double) -> Double {
        defer { lastMagneticHeading = magneticHeading }
        guard let previous = heading, let rateOfTurn, rateOfTurn.isFinite, interval.isFinite, interval > 0, interval <= 1 else {
            heading = Degrees.normalized(magneticHeading) ?? 0
            return heading!
        }
        // The bias: the gyro's rate less the magnetometer's, averaged (the magnetometer's steps add
        // up to its change over the average's span, so its noise does not).
        if let last = lastMagneticHeading {
            let sample = rateOfTurn - Degrees.signedDifference(from: last, to: magneticHeading) / interval
            if sample.isFinite { bias += (sample - bias) * interval / (biasTimeConstant + interval) }
        }
        let predicted = previous + rateOfTurn * interval
        let error = Degrees.signedDifference(from: predicted, to: magneticHeading)
        let next = predicted + error * interval / (timeConstant + interval)
        heading = Degrees.normalized(next) ?? 0
        return heading!
    }

    /// Carries the heading on the gyro alone (its bias taken off), for a sample whose magnetometer
    /// is not to be trusted.
    /// - Parameters:
    ///   - rateOfTurn: Degrees a second, clockwise.
    ///   - interval: Seconds since the last sample.
    /// - Returns: The heading, or `nil` when there is none to carry (no heading yet, no rate, or a
    ///   gap over a second): then the heading is forgotten.
    public mutating func coast(rateOfTurn: Double?, interval: Double) -> Double? {
        lastMagneticHeading = nil
        guard let previous = heading, let rateOfTurn, rateOfTurn.isFinite, interval.isFinite, interval > 0, interval <= 1 else {
            heading = nil
            return nil
        }
        heading = Degrees.normalized(previous + (rateOfTurn - bias) * interval) ?? 0
        return heading
    }

    /// Forgets the heading: the next update starts from the magnetometer's. The bias learned stays.
    public mutating func reset() {
        heading = nil
        lastMagneticHeading = nil
    }
}
