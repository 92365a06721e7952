// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

extension HeadingProcessor {
    /// How a ``HeadingProcessor`` judges and combines its sources.
    public struct Configuration: Sendable {
        /// How long without a heading before a source is stale: a ``HeadingFault/Code/stale`` fault,
        /// and a failover when it is the active source. Default 2 s (OpenCPN waits 5 s).
        public var staleAfter: Duration
        /// How long a better source must be healthy again before headings fail back to it. Default 5 s.
        public var failBackHold: Duration
        /// The angle two healthy sources may disagree by before a ``HeadingFault/Code/disagreement``
        /// fault, in degrees; `nil` never raises one. Default 10°.
        public var disagreementThreshold: Double?
        /// How long the disagreement must last before the fault. Default 10 s.
        public var disagreementHold: Duration
        /// Where the vessel is when no source reports a position: for the World Magnetic Model.
        public var fixedPosition: GeographicPosition?
        /// The model for variation when the device sends none; `nil` derives nothing from a model.
        public var magneticModel: WorldMagneticModel?
        /// The least change, in degrees on the circle, for which a heading is delivered, like
        /// `CLLocationManager.headingFilter`; 0 delivers every heading. Applied here rather than in
        /// the proxies so that a steady heading never looks stale. Default 0.
        public var headingFilter: Double

        /// Creates a configuration.
        /// - Parameters:
        ///   - staleAfter: Time without a heading before a source is stale. Default 2 s.
        ///   - failBackHold: Time a better source must be healthy before failing back to it. Default 5 s.
        ///   - disagreementThreshold: Degrees of disagreement that raise a fault; `nil` for never. Default 10.
        ///   - disagreementHold: How long a disagreement must last. Default 10 s.
        ///   - fixedPosition: The vessel's position when no source reports one.
        ///   - magneticModel: The model for variation. Default ``WorldMagneticModel/wmm2025``.
        ///   - headingFilter: The least change in degrees for which a heading is delivered. Default 0.
        public init(
            staleAfter: Duration = .seconds(2),
            failBackHold: Duration = .seconds(5),
            disagreementThreshold: Double? = 10,
            disagreementHold: Duration = .seconds(10),
            fixedPosition: GeographicPosition? = nil,
            magneticModel: WorldMagneticModel? = .wmm2025,
            headingFilter: Double = 0
        ) {
            self.staleAfter = staleAfter
            self.failBackHold = failBackHold
            self.disagreementThreshold = disagreementThreshold
            self.disagreementHold = disagreementHold
            self.fixedPosition = fixedPosition
            self.magneticModel = magneticModel
            self.headingFilter = headingFilter.isFinite ? min(max(0, headingFilter), 180) : 0
        }
    }
}
