// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A direction as a point on the unit circle: x toward north, y toward east.
struct UnitVector: Sendable, Hashable {
    var x: Double
    var y: Double

    init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The unit vector of a compass direction in degrees.
    init(degrees: Double) {
        let radians = degrees * .pi / 180
        x = cos(radians)
        y = sin(radians)
    }

    /// The vector's compass direction in `[0, 360)`; `nil` for the zero vector.
    var degrees: Double? {
        guard x != 0 || y != 0 else { return nil }
        return Degrees.normalized(atan2(y, x) * 180 / .pi)
    }
}
