// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A complementary filter of a magnetometer's heading with a gyroscope's rate of turn: the gyro
/// carries the heading from one sample to the next (so pitching, heel and the accelerometer's
/// jolts in a seaway, which swing the tilt-compensated heading for a moment, barely move it), and
/// the magnetometer pulls it back with the time constant ``timeConstant`` (so the gyro's drift
/// never builds up). Pure: headings and rates in, a heading out.
///
/// The rate about the vertical is the gyro's vector along up: a turn to starboard (clockwise seen
/// from above) is a negative rotation about +Z in the right-handed device frame, a positive rate of turn.
public struct GyroHeadingFilter: Sendable, Hashable {
    /// Seconds over which the magnetometer corrects the gyro: longer rides out more of a seaway,
    /// shorter follows a magnetometer step sooner. Default 2 s.
    public var timeConstant: Double
    /// The filtered heading in degrees, `nil` before the first update.
    public private(set) var heading: Double?

    /// Creates a filter.
    /// - Parameter timeConstant: Seconds over which the magnetometer corrects the gyro (at least 0.05). Default 2.
    public init(timeConstant: Double = 2) {
        self.timeConstant = max(0.05, timeConstant)
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
        guard let previous = heading, let rateOfTurn, rateOfTurn.isFinite, interval.isFinite, interval > 0, interval <= 1 else {
            heading = Degrees.normalized(magneticHeading) ?? 0
            return heading!
        }
        let predicted = previous + rateOfTurn * interval
        let error = Degrees.signedDifference(from: predicted, to: magneticHeading)
        let next = predicted + error * interval / (timeConstant + interval)
        heading = Degrees.normalized(next) ?? 0
        return heading!
    }

    /// Forgets the heading: the next update starts from the magnetometer's.
    public mutating func reset() { heading = nil }
}
