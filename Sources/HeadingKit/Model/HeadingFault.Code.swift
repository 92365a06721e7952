// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

extension HeadingFault {
    /// What went wrong: a struct of static values, so that new codes break no caller.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The code's stable name, as written in logs and JSON.
        public let rawValue: String

        /// Creates a code from its stable name.
        /// - Parameter rawValue: The name, such as `deviceLost`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The source cannot be reached: gpsd not running, a file that does not exist.
        public static let sourceUnavailable = Code(rawValue: "sourceUnavailable")
        /// The sensor stopped reporting: a cable pulled, a device deactivated, a dropout.
        public static let deviceLost = Code(rawValue: "deviceLost")
        /// No heading arrived for longer than allowed; the last one is no longer current.
        public static let stale = Code(rawValue: "stale")
        /// A line of input could not be read: bad checksum, truncated, not a number.
        public static let malformedInput = Code(rawValue: "malformedInput")
        /// A value was well formed but outside its range, such as a heading of 14042°.
        public static let outOfRange = Code(rawValue: "outOfRange")
        /// The input is in a format HeadingKit does not read, such as a binary vendor protocol.
        public static let unsupportedInput = Code(rawValue: "unsupportedInput")
        /// Access was refused by the system or forbidden by configuration.
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// Two healthy sources have disagreed by more than the allowed angle for longer than the hold time.
        public static let disagreement = Code(rawValue: "disagreement")
        /// The magnetic model is used past its years of validity: its variation is extrapolated.
        public static let magneticModelOutdated = Code(rawValue: "magneticModelOutdated")
        /// The compass reports that it needs calibration.
        public static let calibrationNeeded = Code(rawValue: "calibrationNeeded")
        /// A magnetometer's headings are not corrected for the iron around it (no calibration):
        /// commonly 5–30° wrong. Raised once; its headings still flow.
        public static let uncalibrated = Code(rawValue: "uncalibrated")
        /// The World Magnetic Model's horizontal field where the vessel is lies below 2,000 nT
        /// (NOAA's blackout zone, near the magnetic poles): no magnetic source's heading can be
        /// trusted. Raised once per magnetic source on entering the zone; headings still flow
        /// (a `recovered` notice says when it is left).
        public static let magneticBlackout = Code(rawValue: "magneticBlackout")
        /// A magnetometer's field is not the Earth's alone — a magnet, a motor or a loudspeaker
        /// beside it: its strength or dip is beyond the calibration's bounds, or its heading turns
        /// where the gyroscope's does not (``MagneticDisturbanceDetector``). Raised at its onset, and
        /// again when the gyroscope has carried the heading alone for as long as it may. Headings
        /// still flow, with a wider accuracy: carried by the gyroscope, or without one the
        /// magnetometer's own; the calibration is not refined meanwhile. Its end is logged.
        public static let magneticDisturbance = Code(rawValue: "magneticDisturbance")

        /// The code's stable name.
        public var description: String { rawValue }
    }
}
