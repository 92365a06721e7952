// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import HeadingKit

/// The rate of turn from successive headings, for `ROT`: degrees per minute, negative to port,
/// measured the short way round the circle between each heading and the one before it.
public struct RateOfTurnEstimator: Sendable {
    private var previous: (degrees: Double, timestamp: Double)?

    /// Creates an estimator with no heading yet.
    public init() {}

    /// Takes the next heading (true where known, else magnetic).
    /// - Parameter heading: The heading, newer than the one before.
    /// - Returns: Degrees per minute since the previous heading; `nil` for the first, or when the
    ///   time did not advance (or went back more than a minute: a new stretch starts).
    public mutating func rate(after heading: Heading) -> Double? {
        guard let degrees = heading.preferredHeading else { return nil }
        let now = heading.timestamp.timeIntervalSince1970
        defer { previous = (degrees, now) }
        guard let previous, now > previous.timestamp, now - previous.timestamp <= 60 else { return nil }
        return Degrees.signedDifference(from: previous.degrees, to: degrees) / ((now - previous.timestamp) / 60)
    }
}
