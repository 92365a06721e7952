// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// A compass's deviation card: the deviation measured at a few compass headings when the compass
/// was swung, interpolated in between. magnetic heading = compass heading + deviation (East positive).
public struct DeviationTable: Sendable, Hashable {
    /// Why a table is not usable.
    public struct InvalidTable: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// The measured points, `(compass heading, deviation)` in degrees, sorted by heading, each
    /// heading in `[0, 360)` and once only.
    public let entries: [Entry]

    /// One measured point.
    public struct Entry: Sendable, Hashable {
        /// The compass heading it was measured at, in `[0, 360)`.
        public let heading: Double
        /// The deviation there in degrees, East positive.
        public let deviation: Double
    }

    /// Creates a table from measured points.
    /// - Parameter entries: `(compass heading, deviation)` pairs in degrees; headings in `[0, 360]`
    ///   (360 is 0), deviations within ±90°.
    /// - Throws: ``InvalidTable`` for no points, a repeated heading, or a value out of range.
    public init(_ entries: [(heading: Double, deviation: Double)]) throws(InvalidTable) {
        guard !entries.isEmpty else { throw InvalidTable(description: "a deviation table needs at least one point") }
        var points: [Entry] = []
        for (heading, deviation) in entries {
            guard heading.isFinite, (0...360).contains(heading), let folded = Degrees.normalized(heading) else {
                throw InvalidTable(description: "heading \(heading) is outside 0–360°")
            }
            guard deviation.isFinite, abs(deviation) <= 90 else {
                throw InvalidTable(description: "deviation \(deviation) at \(heading)° is outside ±90°")
            }
            guard !points.contains(where: { $0.heading == folded }) else {
                throw InvalidTable(description: "heading \(heading)° appears twice")
            }
            points.append(Entry(heading: folded, deviation: deviation))
        }
        self.entries = points.sorted { $0.heading < $1.heading }
    }

    /// The deviation at a compass heading, interpolated linearly between the two nearest measured
    /// points around the circle (past the last point, toward the first).
    /// - Parameter compassHeading: The compass heading in degrees.
    /// - Returns: The deviation in degrees, East positive.
    public func deviation(at compassHeading: Double) -> Double {
        guard entries.count > 1, let heading = Degrees.normalized(compassHeading) else { return entries[0].deviation }
        let upperIndex = entries.firstIndex { $0.heading > heading } ?? 0
        let upper = entries[upperIndex]
        let lower = entries[(upperIndex + entries.count - 1) % entries.count]
        // Arc lengths measured clockwise, so the wrap past 360° needs no special case.
        let span = Degrees.normalized(upper.heading - lower.heading) ?? 0
        guard span > 0 else { return lower.deviation }
        let along = Degrees.normalized(heading - lower.heading) ?? 0
        return lower.deviation + (upper.deviation - lower.deviation) * along / span
    }
}
