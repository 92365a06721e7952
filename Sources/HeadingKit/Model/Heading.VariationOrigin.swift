// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

extension Heading {
    /// Where a heading's magnetic variation came from, and so how its derived true or magnetic
    /// heading was made (``HeadingProcessor`` fills in whichever of the two the device left out).
    public enum VariationOrigin: String, Sendable, Hashable, Codable, CaseIterable {
        /// The device sent it: HDG, RMC, or gpsd's `magvar`.
        case device
        /// The World Magnetic Model at the last known position.
        case model
        /// No variation was known: only the heading the device gave is filled in.
        case none
    }
}
