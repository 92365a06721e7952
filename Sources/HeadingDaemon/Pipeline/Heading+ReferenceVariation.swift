// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

extension Heading {
    /// The variation to take a true reference's heading to magnetic, for a deviation card: the
    /// device's own, else the World Magnetic Model 2025's at the heading's position (or
    /// `fallback`) and time; `nil` when neither is known.
    /// - Parameter fallback: The position when the heading carries none (`--position`, `[processing] position`).
    func variation(orModelAt fallback: GeographicPosition?) -> Double? {
        magneticVariation ?? (position ?? fallback).map {
            WorldMagneticModel.wmm2025.field(latitude: $0.latitude, longitude: $0.longitude, at: timestamp).declination
        }
    }
}
