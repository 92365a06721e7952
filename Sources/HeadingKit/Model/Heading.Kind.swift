// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

extension Heading {
    /// The kind of sensor a heading came from.
    ///
    /// A struct of static values rather than an enum, so that new kinds break no caller's `switch`.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The kind's stable name, as written in JSON output.
        public let rawValue: String

        /// Creates a kind from its stable name.
        /// - Parameter rawValue: The name, such as `compass`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A magnetic compass: fluxgate, MEMS or electronic.
        public static let compass = Kind(rawValue: "compass")
        /// A GNSS compass: two or more antennas on a fixed baseline.
        public static let gnssCompass = Kind(rawValue: "gnssCompass")
        /// An inertial or GNSS/IMU attitude unit.
        public static let inertial = Kind(rawValue: "inertial")
        /// Course over ground from GNSS motion: a heading only while moving.
        public static let courseOverGround = Kind(rawValue: "courseOverGround")
        /// A simulated sensor.
        public static let simulated = Kind(rawValue: "simulated")

        /// The kind's stable name.
        public var description: String { rawValue }
    }
}
