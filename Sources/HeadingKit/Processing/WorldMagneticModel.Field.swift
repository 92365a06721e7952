// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension WorldMagneticModel {
    /// The main field the model gives at a place and date: what a calibrated magnetometer should
    /// measure there, and whether magnetic north can be trusted.
    public struct Field: Sendable, Hashable {
        /// The north component in nT.
        public var north: Double
        /// The east component in nT.
        public var east: Double
        /// The down component in nT (positive in the northern hemisphere, where the field dips).
        public var down: Double

        /// Creates a field from its components in nT.
        /// - Parameters:
        ///   - north: The north component.
        ///   - east: The east component.
        ///   - down: The down component.
        public init(north: Double, east: Double, down: Double) {
            self.north = north
            self.east = east
            self.down = down
        }

        /// The horizontal intensity H in nT: what gives a compass its direction.
        public var horizontalIntensity: Double { (north * north + east * east).squareRoot() }
        /// The total intensity F in nT.
        public var totalIntensity: Double { (north * north + east * east + down * down).squareRoot() }
        /// The inclination (dip) in degrees, down positive.
        public var inclination: Double { atan2(down, horizontalIntensity) * 180 / .pi }
        /// The declination in degrees, East positive.
        public var declination: Double { atan2(east, north) * 180 / .pi }

        /// Where a compass stands: NOAA's blackout zone (H below 2,000 nT: no compass can be trusted),
        /// its caution zone (2,000–6,000 nT: one may be erratic), or neither.
        public var zone: Zone {
            let horizontal = horizontalIntensity
            if horizontal < Zone.blackoutBelow { return .blackout }
            if horizontal < Zone.cautionBelow { return .caution }
            return .normal
        }

        /// NOAA's zones of the horizontal intensity around the magnetic poles.
        public enum Zone: String, Sendable, Hashable, CaseIterable {
            /// H ≥ 6,000 nT.
            case normal
            /// 2,000 nT ≤ H < 6,000 nT: a compass may be erratic.
            case caution
            /// H < 2,000 nT: a compass cannot be trusted.
            case blackout

            /// The blackout zone's upper bound in nT.
            public static let blackoutBelow = 2000.0
            /// The caution zone's upper bound in nT.
            public static let cautionBelow = 6000.0
        }
    }

    /// The main field at a place and date.
    /// - Parameters:
    ///   - latitude: Geodetic (WGS 84) latitude in degrees, North positive.
    ///   - longitude: Longitude in degrees, East positive.
    ///   - altitude: Height above the WGS 84 ellipsoid in metres.
    ///   - date: The date.
    /// - Returns: The field's components.
    public func field(latitude: Double, longitude: Double, altitude: Double = 0, at date: Date) -> Field {
        field(latitude: latitude, longitude: longitude, altitude: altitude, decimalYear: Self.decimalYear(of: date))
    }

    /// The main field at a place and a decimal year, as the WMM test values give them.
    /// - Parameters:
    ///   - latitude: Geodetic latitude in degrees.
    ///   - longitude: Longitude in degrees.
    ///   - altitude: Height above the WGS 84 ellipsoid in metres.
    ///   - decimalYear: The year with its fraction.
    /// - Returns: The field's components.
    public func field(latitude: Double, longitude: Double, altitude: Double = 0, decimalYear: Double) -> Field {
        let components = northEastDown(latitude: latitude, longitude: longitude, altitudeKilometres: altitude / 1000, decimalYear: decimalYear)
        return Field(north: components.north, east: components.east, down: components.down)
    }
}
