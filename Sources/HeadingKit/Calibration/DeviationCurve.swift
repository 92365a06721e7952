// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A compass's deviation as the classic five-coefficient curve a compass adjuster fits:
/// deviation = A + B·sin θ + C·cos θ + D·sin 2θ + E·cos 2θ, with θ the **compass heading** (what
/// the instrument reports) and the deviation East positive, so that magnetic heading = compass
/// heading + deviation, as a ``DeviationTable`` applies it.
///
/// A is a constant error (a misaligned lubber line), B and C the boat's permanent magnetism fore
/// and aft and athwartships, D and E its induced magnetism.
public struct DeviationCurve: Sendable, Hashable, Codable {
    /// The coefficients in degrees.
    public var a, b, c, d, e: Double

    /// A curve from its coefficients.
    public init(a: Double, b: Double, c: Double, d: Double, e: Double) {
        (self.a, self.b, self.c, self.d, self.e) = (a, b, c, d, e)
    }

    /// The deviation at a compass heading, in degrees (East positive).
    /// - Parameter compassHeading: The compass heading in degrees.
    public func deviation(at compassHeading: Double) -> Double {
        let theta = compassHeading * .pi / 180
        return a + b * sin(theta) + c * cos(theta) + d * sin(2 * theta) + e * cos(2 * theta)
    }

    /// The card: the deviation every `step` degrees of compass heading from 0, rounded to 0.1°.
    /// - Parameter step: Degrees between points (15: 24 points).
    public func card(every step: Int = 15) -> [DeviationTable.Entry] {
        stride(from: 0, to: 360, by: max(1, step)).map { heading in
            DeviationTable.Entry(heading: Double(heading), deviation: (deviation(at: Double(heading)) * 10).rounded() / 10)
        }
    }

    /// The card as the source parameter that applies it: `deviation=0:1.2,15:0.8,…`.
    /// - Parameter step: Degrees between points.
    public func parameter(every step: Int = 15) -> String {
        "deviation=" + card(every: step).map { "\(Int($0.heading)):\(String(format: "%.1f", $0.deviation))" }.joined(separator: ",")
    }
}

extension DeviationCurve: CustomStringConvertible {
    /// The five coefficients: `A 1.0° B 3.0° C -2.0° D 0.5° E -0.7°`.
    public var description: String {
        [("A", a), ("B", b), ("C", c), ("D", d), ("E", e)].map { "\($0.0) \(String(format: "%.1f", $0.1))°" }.joined(separator: " ")
    }
}
