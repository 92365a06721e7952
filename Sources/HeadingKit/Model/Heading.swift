// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// One heading report: where the vessel, vehicle or antenna points, and how well that is known.
///
/// The counterpart of CoreLocation's `CLHeading`, for Linux hardware. Every angle is in degrees:
/// headings in `[0, 360)`, never 360.0, never negative; unknown values are `nil`, never a magic
/// negative number. A heading always carries at least one of ``trueHeading`` and ``magneticHeading``.
public struct Heading: Sendable, Hashable, Codable {
    /// The heading relative to true (geographic) north, in `[0, 360)`; `nil` when unknown.
    public let trueHeading: Double?
    /// The heading relative to magnetic north, in `[0, 360)`; `nil` when unknown.
    public let magneticHeading: Double?
    /// The largest likely error of the heading, in degrees; `nil` when the device does not say.
    public let headingAccuracy: Double?
    /// When the heading was measured: the device's time where it gives one, else the time it was received.
    public let timestamp: Date
    /// The name of the source that produced the heading, such as `simulation` or `gpsd://127.0.0.1:2947`.
    public let source: String
    /// What kind of sensor measured the heading.
    public let kind: Kind
    /// Pitch (bow up positive) in degrees, where the device reports it.
    public let pitch: Double?
    /// Roll (starboard down positive) in degrees, where the device reports it.
    public let roll: Double?
    /// Magnetic variation (declination) in degrees, East positive: true = magnetic + variation.
    public let magneticVariation: Double?
    /// Compass deviation in degrees, East positive: magnetic = sensor + deviation.
    public let deviation: Double?
    /// Where ``magneticVariation`` came from: `nil` until a ``HeadingProcessor`` has looked.
    public let variationOrigin: VariationOrigin?
    /// Where the heading was measured, when the source knows (the last GNSS fix it reported).
    public let position: GeographicPosition?

    /// Creates a heading, folding every heading angle into `[0, 360)`.
    ///
    /// A heading angle that is not finite is stored as `nil`.
    /// - Parameters:
    ///   - trueHeading: Degrees from true north, or `nil` when unknown.
    ///   - magneticHeading: Degrees from magnetic north, or `nil` when unknown.
    ///   - headingAccuracy: The likely error in degrees, or `nil` when unknown.
    ///   - timestamp: When the heading was measured.
    ///   - source: The producing source's name.
    ///   - kind: The kind of sensor.
    ///   - pitch: Pitch in degrees, if known.
    ///   - roll: Roll in degrees, if known.
    ///   - magneticVariation: Magnetic variation in degrees, East positive, if known.
    ///   - deviation: Compass deviation in degrees, East positive, if known.
    ///   - variationOrigin: Where the variation came from, if anyone has decided.
    ///   - position: Where the heading was measured, if known.
    public init(
        trueHeading: Double?,
        magneticHeading: Double?,
        headingAccuracy: Double? = nil,
        timestamp: Date,
        source: String,
        kind: Kind = .compass,
        pitch: Double? = nil,
        roll: Double? = nil,
        magneticVariation: Double? = nil,
        deviation: Double? = nil,
        variationOrigin: VariationOrigin? = nil,
        position: GeographicPosition? = nil
    ) {
        self.trueHeading = trueHeading.flatMap(Degrees.normalized)
        self.magneticHeading = magneticHeading.flatMap(Degrees.normalized)
        self.headingAccuracy = headingAccuracy.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        self.timestamp = timestamp
        self.source = source
        self.kind = kind
        self.pitch = pitch
        self.roll = roll
        self.magneticVariation = magneticVariation
        self.deviation = deviation
        self.variationOrigin = variationOrigin
        self.position = position
    }

    /// The best single direction this heading gives: true heading where known, else magnetic.
    public var preferredHeading: Double? { trueHeading ?? magneticHeading }
}
