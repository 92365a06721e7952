// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// What one report says about heading, before it has a time and a source: the common output of the
/// NMEA 0183 and gpsd JSON decoders. Angles are degrees, already range-checked.
public struct HeadingReading: Sendable, Hashable {
    /// Degrees from true north, if the report gives it.
    public var trueHeading: Double?
    /// Degrees from magnetic north, if the report gives it.
    public var magneticHeading: Double?
    /// The likely error in degrees (the device's standard deviation where it sends one).
    public var accuracy: Double?
    /// Pitch in degrees.
    public var pitch: Double?
    /// Roll in degrees.
    public var roll: Double?
    /// Magnetic variation in degrees, East positive.
    public var magneticVariation: Double?
    /// Compass deviation in degrees, East positive.
    public var deviation: Double?
    /// The kind of sensor.
    public var kind: Heading.Kind

    /// Creates a reading.
    /// - Parameters:
    ///   - trueHeading: Degrees from true north.
    ///   - magneticHeading: Degrees from magnetic north.
    ///   - accuracy: Likely error in degrees.
    ///   - pitch: Pitch in degrees.
    ///   - roll: Roll in degrees.
    ///   - magneticVariation: Variation, East positive.
    ///   - deviation: Deviation, East positive.
    ///   - kind: The kind of sensor.
    public init(
        trueHeading: Double? = nil,
        magneticHeading: Double? = nil,
        accuracy: Double? = nil,
        pitch: Double? = nil,
        roll: Double? = nil,
        magneticVariation: Double? = nil,
        deviation: Double? = nil,
        kind: Heading.Kind
    ) {
        self.trueHeading = trueHeading
        self.magneticHeading = magneticHeading
        self.accuracy = accuracy
        self.pitch = pitch
        self.roll = roll
        self.magneticVariation = magneticVariation
        self.deviation = deviation
        self.kind = kind
    }

    /// The heading this reading becomes at a time, from a source.
    /// - Parameters:
    ///   - timestamp: When it was measured.
    ///   - source: The source's name.
    ///   - position: Where it was measured, if known.
    /// - Returns: The heading.
    public func heading(at timestamp: Date, source: String, position: GeographicPosition? = nil) -> Heading {
        heading(at: timestamp, sourceName: InternedName(source), position: position)
    }

    /// The heading this reading becomes, from a source whose name is already kept: what the
    /// line decoder uses, without a name lookup per heading.
    package func heading(at timestamp: Date, sourceName: InternedName, position: GeographicPosition? = nil) -> Heading {
        Heading(
            trueHeading: trueHeading,
            magneticHeading: magneticHeading,
            headingAccuracy: accuracy,
            timestamp: timestamp,
            sourceName: sourceName,
            kind: kind,
            pitch: pitch,
            roll: roll,
            magneticVariation: magneticVariation,
            deviation: deviation,
            position: position
        )
    }
}

