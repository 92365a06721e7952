// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Angle arithmetic on the compass circle, in degrees.
///
/// Every heading in HeadingKit lies in `[0, 360)`. These functions keep it there and measure
/// differences the short way round the circle, so that 359.5° and 0.3° are 0.8° apart, not 359.2°.
public enum Degrees {
    /// Returns `degrees` folded into `[0, 360)` and rounded to a nanodegree, or `nil` when it is not finite.
    ///
    /// The result is never negative and never 360.0: a value a rounding error below 360
    /// (such as `-1e-15 + 360`) becomes 0. Rounding to 1e-9° removes the binary noise of sums
    /// (229.8 + 1.3 is 231.10000000000002) and of folding (−48.16 + 360 is 311.84000000000003)
    /// while staying far below any sensor's resolution.
    /// - Parameter degrees: Any finite angle in degrees.
    /// - Returns: The same direction as an angle in `[0, 360)`, or `nil` for NaN or infinity.
    public static func normalized(_ degrees: Double) -> Double? {
        guard degrees.isFinite else { return nil }
        var folded = degrees.truncatingRemainder(dividingBy: 360)
        if folded < 0 { folded += 360 }
        folded = (folded * 1e9).rounded() / 1e9
        if folded >= 360 { folded = 0 }
        // -0.0 folds to 0.0 so that JSON output never shows "-0".
        return folded == 0 ? 0 : folded
    }

    /// The signed change that turns `start` into `end` the short way round, in `(-180, 180]`.
    ///
    /// Positive is clockwise (to starboard): from 359.5° to 0.3° is +0.8°; from 0.3° to 359.5° is −0.8°.
    /// - Parameters:
    ///   - start: The angle turned from, in degrees.
    ///   - end: The angle turned to, in degrees.
    /// - Returns: The signed difference in degrees.
    public static func signedDifference(from start: Double, to end: Double) -> Double {
        var difference = (end - start).truncatingRemainder(dividingBy: 360)
        if difference > 180 { difference -= 360 }
        if difference <= -180 { difference += 360 }
        return difference
    }

    /// The unsigned angle between two directions, in `[0, 180]`.
    /// - Parameters:
    ///   - first: One direction in degrees.
    ///   - second: The other direction in degrees.
    /// - Returns: The smaller of the two arcs between them.
    public static func distance(_ first: Double, _ second: Double) -> Double {
        abs(signedDifference(from: first, to: second))
    }

    /// The direction a fraction of the way from `start` to `end`, the short way round, in `[0, 360)`.
    ///
    /// Computed on unit vectors (normalized linear interpolation), so from 350° to 10° halfway is 0°,
    /// never 180°. A fraction of 0 gives `start`, 1 gives `end`; for fractions in between the
    /// result never leaves the shorter arc between them. Directions exactly opposite have no shorter
    /// arc: the result then turns clockwise from `start`.
    /// - Parameters:
    ///   - start: The direction at fraction 0, in degrees.
    ///   - end: The direction at fraction 1, in degrees.
    ///   - fraction: How far along, usually in `[0, 1]`.
    /// - Returns: The interpolated direction, or `nil` when an input is not finite.
    public static func interpolated(from start: Double, to end: Double, fraction: Double) -> Double? {
        guard start.isFinite, end.isFinite, fraction.isFinite else { return nil }
        if fraction <= 0 { return normalized(start) }
        if fraction >= 1 { return normalized(end) }
        let difference = signedDifference(from: start, to: end)
        guard abs(difference) < 180 else { return normalized(start + difference * fraction) }
        let from = UnitVector(degrees: start)
        let to = UnitVector(degrees: end)
        return UnitVector(x: from.x + (to.x - from.x) * fraction, y: from.y + (to.y - from.y) * fraction).degrees
    }

    /// The circular mean of directions: the direction of the sum of their unit vectors, in `[0, 360)`.
    ///
    /// 359° and 1° average to 0°, never 180°. Directions that cancel out (0° and 180°, or three
    /// at 120° apart) have no mean.
    /// - Parameter angles: Directions in degrees.
    /// - Returns: The mean direction, or `nil` when there are none, one is not finite, or they cancel out.
    public static func circularMean(_ angles: some Sequence<Double>) -> Double? {
        var sum = UnitVector(x: 0, y: 0)
        var count = 0
        for angle in angles {
            guard angle.isFinite else { return nil }
            let vector = UnitVector(degrees: angle)
            sum.x += vector.x
            sum.y += vector.y
            count += 1
        }
        // The resultant's length relative to the count: near zero the direction is noise.
        guard count > 0, (sum.x * sum.x + sum.y * sum.y).squareRoot() > 1e-9 * Double(count) else { return nil }
        return sum.degrees
    }
}
