// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Exponential smoothing of a direction on the circle, with a time constant in seconds.
///
/// Each new direction moves the smoothed one part of the way toward it, the short way round
/// (on unit vectors, see ``Degrees/interpolated(from:to:fraction:)``): by `1 − e^(−Δt/τ)` of the
/// arc between them, where Δt is the time since the previous direction and τ the time constant.
/// So a step change is 63 % followed after τ seconds whatever the rate, smoothing across north
/// never swings through south, and the result always lies on the arc between the previous
/// smoothed direction and the new one.
package struct HeadingSmoother: Sendable {
    /// The time constant τ in seconds; 0 passes every direction through unchanged.
    package let timeConstant: Double
    private var last: (degrees: Double, time: Double)?

    /// Creates a smoother.
    /// - Parameter timeConstant: τ in seconds, 0 or more; 0 (or a value that is not finite) smooths nothing.
    package init(timeConstant: Double) {
        self.timeConstant = timeConstant.isFinite ? max(0, timeConstant) : 0
    }

    /// The smoothed direction after `degrees` measured at `time`.
    ///
    /// The first direction passes through. A direction from before the previous one (time went
    /// backwards, as when a replay loops) or more than ten time constants after it starts again
    /// from that direction.
    /// - Parameters:
    ///   - degrees: The new direction, in degrees.
    ///   - time: When it was measured, in seconds on any steady scale.
    /// - Returns: The smoothed direction in `[0, 360)`.
    package mutating func smooth(_ degrees: Double, at time: Double) -> Double {
        let input = Degrees.normalized(degrees) ?? 0
        guard timeConstant > 0, let last, time >= last.time, time - last.time <= 10 * timeConstant else {
            self.last = (input, time)
            return input
        }
        let fraction = 1 - exp(-(time - last.time) / timeConstant)
        let smoothed = Degrees.interpolated(from: last.degrees, to: input, fraction: fraction) ?? input
        self.last = (smoothed, time)
        return smoothed
    }

    /// Forgets the history: the next direction passes through.
    package mutating func reset() { last = nil }
}
