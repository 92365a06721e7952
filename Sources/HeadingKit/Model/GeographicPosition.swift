// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// A place on the Earth as GNSS gives it: WGS 84 latitude and longitude, and height above the ellipsoid.
public struct GeographicPosition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Latitude in degrees, North positive, in `[-90, 90]`.
    public let latitude: Double
    /// Longitude in degrees, East positive, in `[-180, 180]`.
    public let longitude: Double
    /// Height above the WGS 84 ellipsoid in metres, where known.
    public let altitude: Double?

    /// Creates a position, or `nil` when latitude or longitude is out of range or not finite.
    /// - Parameters:
    ///   - latitude: Degrees, North positive, `-90...90`.
    ///   - longitude: Degrees, East positive, `-180...180` (360° is folded into it).
    ///   - altitude: Metres above the WGS 84 ellipsoid, if known.
    public init?(latitude: Double, longitude: Double, altitude: Double? = nil) {
        guard latitude.isFinite, (-90...90).contains(latitude), longitude.isFinite, (-360...360).contains(longitude) else {
            return nil
        }
        self.latitude = latitude
        self.longitude = longitude > 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude
        self.altitude = altitude.flatMap { $0.isFinite ? $0 : nil }
    }

    /// `latitude,longitude` (and `,altitude` when known).
    public var description: String {
        "\(latitude),\(longitude)" + (altitude.map { ",\($0)" } ?? "")
    }
}
