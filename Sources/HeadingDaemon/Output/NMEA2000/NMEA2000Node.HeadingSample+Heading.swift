// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import NMEA2000

extension NMEA2000Node.HeadingSample {
    /// The sample of a heading headingd gives: true when it has it (127250 says which), the
    /// variation and its origin (the World Magnetic Model 2025, or the device's own: an automatic
    /// calculation in 127258's terms).
    init(_ heading: Heading, rateOfTurn: Double?) {
        let source: MagneticVariation.Source? = switch heading.variationOrigin {
        case .model: .worldMagneticModel(edition: 2025)
        case .device: .automaticCalculation
        case .some(.none), nil: nil
        }
        self.init(
            trueHeading: heading.trueHeading, magneticHeading: heading.magneticHeading, deviation: heading.deviation,
            variation: heading.magneticVariation, variationSource: source, rateOfTurn: rateOfTurn, pitch: heading.pitch, roll: heading.roll
        )
    }
}
