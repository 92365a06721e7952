// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

extension HeadingProcessor {
    /// How one sensor is installed: what turns its readings into the vessel's heading.
    public struct Installation: Sendable, Hashable {
        /// Degrees added to the sensor's heading to give the vessel's (or robot's, or antenna's):
        /// a sensor whose forward axis points 2° to starboard of the bow reads 2° high, so −2.
        /// Like `CLLocationManager.headingOrientation`, but for a fixed installation.
        public var mountingOffset: Double
        /// The time constant of exponential smoothing in seconds; 0 smooths nothing.
        public var smoothingTimeConstant: Double
        /// The compass's deviation card, applied to magnetic readings that carry no deviation of their own.
        public var deviationTable: DeviationTable?

        /// Creates an installation.
        /// - Parameters:
        ///   - mountingOffset: Degrees added to the sensor's heading. Default 0.
        ///   - smoothingTimeConstant: Seconds; 0 for none. Default 0.
        ///   - deviationTable: The deviation card, if the compass has one.
        public init(mountingOffset: Double = 0, smoothingTimeConstant: Double = 0, deviationTable: DeviationTable? = nil) {
            self.mountingOffset = mountingOffset.isFinite ? mountingOffset : 0
            self.smoothingTimeConstant = smoothingTimeConstant.isFinite ? max(0, smoothingTimeConstant) : 0
            self.deviationTable = deviationTable
        }
    }
}
