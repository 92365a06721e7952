// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// One heading report: where the vessel, vehicle or antenna points, and how well that is known.
///
/// The counterpart of CoreLocation's `CLHeading`, for Linux hardware. Every angle is in degrees:
/// headings in `[0, 360)`, never 360.0, never negative; unknown values are `nil`, never a magic
/// negative number. A heading always carries at least one of ``trueHeading`` and ``magneticHeading``.
public struct Heading: Sendable, Hashable, Codable {
    // Storage: the seven optional angles as plain doubles and one bit each for "known" (an
    // `Optional<Double>` takes 16 bytes in a struct), and the source's name as a one-word
    // `InternedName`: 116 bytes where optionals and a `String` took 178, with the fields in the
    // order that leaves the least padding. A heading is copied several times on its way from a
    // line to an observer, and past 128 bytes each copy is a call to `memmove`. An unknown
    // value's double is always 0, so the synthesized `==` and `hash(into:)` over the storage
    // agree with the optionals'.
    private let storedTrueHeading: Double
    private let storedMagneticHeading: Double
    private let storedHeadingAccuracy: Double
    private let storedPitch: Double
    private let storedRoll: Double
    private let storedMagneticVariation: Double
    private let storedDeviation: Double
    /// When the heading was measured: the device's time where it gives one, else the time it was received.
    public let timestamp: Date
    /// The name of the source that produced the heading, kept once per process (see
    /// ``InternedName``): copying a heading then retains nothing.
    package let sourceName: InternedName
    /// What kind of sensor measured the heading.
    public let kind: Kind
    /// Where the heading was measured, when the source knows (the last GNSS fix it reported).
    public let position: GeographicPosition?
    /// Where ``magneticVariation`` came from: `nil` until a ``HeadingProcessor`` has looked.
    public let variationOrigin: VariationOrigin?
    /// Which of the stored angles are known: one bit each, in ``Known``.
    private let known: Known

    /// One bit per optional angle.
    private struct Known: OptionSet, Hashable {
        let rawValue: UInt8
        static let trueHeading = Known(rawValue: 1 << 0)
        static let magneticHeading = Known(rawValue: 1 << 1)
        static let headingAccuracy = Known(rawValue: 1 << 2)
        static let pitch = Known(rawValue: 1 << 3)
        static let roll = Known(rawValue: 1 << 4)
        static let magneticVariation = Known(rawValue: 1 << 5)
        static let deviation = Known(rawValue: 1 << 6)
    }

    /// The name of the source that produced the heading, such as `simulation` or `gpsd://127.0.0.1:2947`.
    public var source: String { sourceName.string }

    /// The heading relative to true (geographic) north, in `[0, 360)`; `nil` when unknown.
    public var trueHeading: Double? { known.contains(.trueHeading) ? storedTrueHeading : nil }
    /// The heading relative to magnetic north, in `[0, 360)`; `nil` when unknown.
    public var magneticHeading: Double? { known.contains(.magneticHeading) ? storedMagneticHeading : nil }
    /// The largest likely error of the heading, in degrees; `nil` when the device does not say.
    public var headingAccuracy: Double? { known.contains(.headingAccuracy) ? storedHeadingAccuracy : nil }
    /// Pitch (bow up positive) in degrees, where the device reports it.
    public var pitch: Double? { known.contains(.pitch) ? storedPitch : nil }
    /// Roll (starboard down positive) in degrees, where the device reports it.
    public var roll: Double? { known.contains(.roll) ? storedRoll : nil }
    /// Magnetic variation (declination) in degrees, East positive: true = magnetic + variation.
    public var magneticVariation: Double? { known.contains(.magneticVariation) ? storedMagneticVariation : nil }
    /// Compass deviation in degrees, East positive: magnetic = sensor + deviation.
    public var deviation: Double? { known.contains(.deviation) ? storedDeviation : nil }

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
        self.init(
            trueHeading: trueHeading, magneticHeading: magneticHeading, headingAccuracy: headingAccuracy,
            timestamp: timestamp, sourceName: InternedName(source), kind: kind, pitch: pitch, roll: roll,
            magneticVariation: magneticVariation, deviation: deviation, variationOrigin: variationOrigin, position: position
        )
    }

    /// Creates a heading as the public initializer does, from a source name already kept: the
    /// decoders and the processor make headings with this, without a lookup per heading.
    package init(
        trueHeading: Double?, magneticHeading: Double?, headingAccuracy: Double? = nil, timestamp: Date,
        sourceName: InternedName, kind: Kind, pitch: Double? = nil, roll: Double? = nil, magneticVariation: Double? = nil,
        deviation: Double? = nil, variationOrigin: VariationOrigin? = nil, position: GeographicPosition? = nil
    ) {
        self.init(
            storing: trueHeading.flatMap(Degrees.normalized),
            magneticHeading: magneticHeading.flatMap(Degrees.normalized),
            headingAccuracy: headingAccuracy.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
            timestamp: timestamp, sourceName: sourceName, kind: kind, pitch: pitch, roll: roll,
            magneticVariation: magneticVariation, deviation: deviation, variationOrigin: variationOrigin, position: position
        )
    }

    /// Stores the values as they are (the public initializer has checked the angles; decoding
    /// takes what was encoded).
    private init(
        storing trueHeading: Double?, magneticHeading: Double?, headingAccuracy: Double?, timestamp: Date,
        sourceName: InternedName, kind: Kind, pitch: Double?, roll: Double?, magneticVariation: Double?, deviation: Double?,
        variationOrigin: VariationOrigin?, position: GeographicPosition?
    ) {
        var known = Known()
        storedTrueHeading = Self.store(trueHeading, .trueHeading, in: &known)
        storedMagneticHeading = Self.store(magneticHeading, .magneticHeading, in: &known)
        storedHeadingAccuracy = Self.store(headingAccuracy, .headingAccuracy, in: &known)
        storedPitch = Self.store(pitch, .pitch, in: &known)
        storedRoll = Self.store(roll, .roll, in: &known)
        storedMagneticVariation = Self.store(magneticVariation, .magneticVariation, in: &known)
        storedDeviation = Self.store(deviation, .deviation, in: &known)
        self.known = known
        self.timestamp = timestamp
        self.sourceName = sourceName
        self.kind = kind
        self.variationOrigin = variationOrigin
        self.position = position
    }

    /// The double to store for `value` (0 when unknown), with `bit` set in `known` when it is
    /// known. A static function taking `known` in-out, not a nested one capturing it: a closure
    /// over a `var` allocates a box for it in a debug build.
    private static func store(_ value: Double?, _ bit: Known, in known: inout Known) -> Double {
        guard let value else { return 0 }
        known.insert(bit)
        return value
    }

    private enum CodingKeys: String, CodingKey {
        case trueHeading, magneticHeading, headingAccuracy, timestamp, source, kind, pitch, roll, magneticVariation,
            deviation, variationOrigin, position
    }

    /// Decodes a heading as ``encode(to:)`` writes it: the keys are the property names, and an
    /// unknown value is an absent key (or `null`).
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` when a required key (`timestamp`, `source`, `kind`) is missing or
    ///   a value has the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            storing: try container.decodeIfPresent(Double.self, forKey: .trueHeading),
            magneticHeading: try container.decodeIfPresent(Double.self, forKey: .magneticHeading),
            headingAccuracy: try container.decodeIfPresent(Double.self, forKey: .headingAccuracy),
            timestamp: try container.decode(Date.self, forKey: .timestamp),
            sourceName: InternedName(try container.decode(String.self, forKey: .source)),
            kind: try container.decode(Kind.self, forKey: .kind),
            pitch: try container.decodeIfPresent(Double.self, forKey: .pitch),
            roll: try container.decodeIfPresent(Double.self, forKey: .roll),
            magneticVariation: try container.decodeIfPresent(Double.self, forKey: .magneticVariation),
            deviation: try container.decodeIfPresent(Double.self, forKey: .deviation),
            variationOrigin: try container.decodeIfPresent(VariationOrigin.self, forKey: .variationOrigin),
            position: try container.decodeIfPresent(GeographicPosition.self, forKey: .position)
        )
    }

    /// Encodes the heading under its property names, leaving out the values that are unknown.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(trueHeading, forKey: .trueHeading)
        try container.encodeIfPresent(magneticHeading, forKey: .magneticHeading)
        try container.encodeIfPresent(headingAccuracy, forKey: .headingAccuracy)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(source, forKey: .source)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(pitch, forKey: .pitch)
        try container.encodeIfPresent(roll, forKey: .roll)
        try container.encodeIfPresent(magneticVariation, forKey: .magneticVariation)
        try container.encodeIfPresent(deviation, forKey: .deviation)
        try container.encodeIfPresent(variationOrigin, forKey: .variationOrigin)
        try container.encodeIfPresent(position, forKey: .position)
    }

    /// The best single direction this heading gives: true heading where known, else magnetic.
    public var preferredHeading: Double? { trueHeading ?? magneticHeading }
}
