// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// The heading filter, like `CLLocationManager.headingFilter`: a heading is delivered only when it
/// differs from the last delivered one by at least ``minimumChange`` degrees, measured on the
/// circle (after 359.5°, 0.3° is 0.8° away). The one rule that ``HeadingProxy`` and
/// ``HeadingProcessor`` both apply.
struct HeadingFilter: Sendable {
    /// The least change in degrees for which a heading is delivered; 0 delivers every heading.
    var minimumChange: Double {
        didSet { minimumChange = Self.clamped(minimumChange) }
    }
    /// What the filter needs of the last heading delivered: its source and its two headings
    /// (not the whole heading, which is copied for every heading that passes).
    private var lastDelivered: Delivered?

    private struct Delivered {
        let sourceName: InternedName
        let trueHeading: Double?
        let magneticHeading: Double?

        init(_ heading: Heading) {
            sourceName = heading.sourceName
            trueHeading = heading.trueHeading
            magneticHeading = heading.magneticHeading
        }
    }

    /// Creates a filter.
    /// - Parameter minimumChange: Degrees; not finite or below 0 counts as 0.
    init(minimumChange: Double = 0) {
        self.minimumChange = Self.clamped(minimumChange)
    }

    /// Forgets the last delivered heading: the next one is delivered whatever it is.
    mutating func reset() {
        lastDelivered = nil
    }

    /// Whether `heading` is delivered, remembering it when it is. The first heading, and the first
    /// from another source than the last delivered one, always is.
    /// - Parameter heading: The candidate.
    /// - Returns: `true` when it is to be delivered.
    mutating func admits(_ heading: Heading) -> Bool {
        if minimumChange > 0, let last = lastDelivered, last.sourceName == heading.sourceName,
            let change = Self.change(from: (last.trueHeading, last.magneticHeading), to: heading), change < minimumChange
        {
            return false
        }
        lastDelivered = Delivered(heading)
        return true
    }

    /// The change between two headings on the circle, comparing like with like (true with true,
    /// else magnetic with magnetic).
    /// - Returns: Degrees in `[0, 180]`, or `nil` when the headings share neither reference.
    static func change(from old: Heading, to new: Heading) -> Double? {
        change(from: (old.trueHeading, old.magneticHeading), to: new)
    }

    private static func change(from old: (trueHeading: Double?, magneticHeading: Double?), to new: Heading) -> Double? {
        if let oldTrue = old.trueHeading, let newTrue = new.trueHeading {
            return Degrees.distance(oldTrue, newTrue)
        }
        if let oldMagnetic = old.magneticHeading, let newMagnetic = new.magneticHeading {
            return Degrees.distance(oldMagnetic, newMagnetic)
        }
        return nil
    }

    private static func clamped(_ degrees: Double) -> Double {
        degrees.isFinite ? max(0, degrees) : 0
    }
}
