// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What turns one sensor's reading into the vessel's heading, in order: the compass's deviation
/// card, the missing true or magnetic heading from a variation, the mounting offset, and
/// smoothing on the circle. Pure: one value per source, inside ``HeadingProcessor``.
struct HeadingCorrection: Sendable {
    /// How the sensor is installed.
    private(set) var installation: HeadingProcessor.Installation
    private var trueSmoother: HeadingSmoother
    private var magneticSmoother: HeadingSmoother

    /// Creates the correction for one installation.
    /// - Parameter installation: The sensor's offset, smoothing and deviation card.
    init(installation: HeadingProcessor.Installation) {
        self.installation = installation
        trueSmoother = HeadingSmoother(timeConstant: installation.smoothingTimeConstant)
        magneticSmoother = HeadingSmoother(timeConstant: installation.smoothingTimeConstant)
    }

    /// Whether ``apply(to:modelVariation:lastPosition:)`` would use a variation from a model for
    /// `heading`: the device gave only one of true and magnetic, and no variation.
    static func needsModelVariation(_ heading: Heading) -> Bool {
        heading.magneticVariation == nil && (heading.trueHeading == nil) != (heading.magneticHeading == nil)
    }

    /// Replaces the deviation card (one learned at sea); the smoothing goes on.
    mutating func setDeviationTable(_ table: DeviationTable?) {
        installation.deviationTable = table
    }

    /// Starts smoothing afresh, after a gap in the sensor's headings.
    mutating func reset() {
        trueSmoother.reset()
        magneticSmoother.reset()
    }

    /// The corrected heading.
    /// - Parameters:
    ///   - heading: The sensor's heading.
    ///   - modelVariation: The model's variation at the heading's place and time, used only when
    ///     the device sent none (see ``needsModelVariation(_:)``).
    ///   - lastPosition: The position to carry when the heading has none of its own.
    /// - Returns: The heading with both references where a variation is known, marked with its
    ///   ``Heading/variationOrigin``.
    mutating func apply(to heading: Heading, modelVariation: Double?, lastPosition: GeographicPosition?) -> Heading {
        var trueHeading = heading.trueHeading
        var magneticHeading = heading.magneticHeading
        var deviation = heading.deviation
        var variation = heading.magneticVariation
        var origin: Heading.VariationOrigin = variation == nil ? .none : .device

        // The compass's own card, for a magnetic reading the device did not correct itself.
        if let table = installation.deviationTable, deviation == nil, let sensor = magneticHeading, heading.kind == .compass {
            let correction = table.deviation(at: sensor)
            deviation = correction
            magneticHeading = sensor + correction
            if let variation { trueHeading = sensor + correction + variation }
        }
        // Fill in what the device left out.
        if variation == nil, let modelVariation, Self.needsModelVariation(heading) {
            (variation, origin) = (modelVariation, .model)
        }
        switch (trueHeading, magneticHeading) {
        case (nil, let magnetic?): trueHeading = variation.map { magnetic + $0 }
        case (let truth?, nil): magneticHeading = variation.map { truth - $0 }
        default: break
        }
        if installation.mountingOffset != 0 {
            trueHeading = trueHeading.map { $0 + installation.mountingOffset }
            magneticHeading = magneticHeading.map { $0 + installation.mountingOffset }
        }
        if installation.smoothingTimeConstant > 0 {
            let time = heading.timestamp.timeIntervalSince1970
            trueHeading = trueHeading.map { trueSmoother.smooth($0, at: time) }
            magneticHeading = magneticHeading.map { magneticSmoother.smooth($0, at: time) }
        }
        return Heading(
            trueHeading: trueHeading, magneticHeading: magneticHeading, headingAccuracy: heading.headingAccuracy,
            timestamp: heading.timestamp, sourceName: heading.sourceName, kind: heading.kind, pitch: heading.pitch, roll: heading.roll,
            magneticVariation: variation, deviation: deviation, variationOrigin: origin, position: heading.position ?? lastPosition
        )
    }
}
