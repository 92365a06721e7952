// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import HeadingKit

/// Turns headings into Signal K delta messages: `navigation.headingTrue`, `headingMagnetic`,
/// `magneticVariation`, `magneticDeviation`, `attitude` and `rateOfTurn`, in SI units (radians,
/// radians a second), only what is known. Pure: no clock, no sockets, no state.
///
/// Each delta has one update with the heading's `timestamp` and a `$source` naming headingd and
/// the source the heading came from (``sourceReference(for:)``); the first delta a client gets
/// can carry `meta` (units and a description) for each path it has.
public struct SignalKDeltaEncoder: Sendable, Hashable {
    /// The paths headingd writes, with their units and descriptions for `meta`.
    public enum Path: String, Sendable, Hashable, CaseIterable {
        /// True heading, radians.
        case headingTrue = "navigation.headingTrue"
        /// Magnetic heading, radians.
        case headingMagnetic = "navigation.headingMagnetic"
        /// Magnetic variation, radians, East positive.
        case magneticVariation = "navigation.magneticVariation"
        /// Compass deviation, radians, East positive.
        case magneticDeviation = "navigation.magneticDeviation"
        /// Roll, pitch and yaw, radians.
        case attitude = "navigation.attitude"
        /// Rate of turn, radians a second, negative to port.
        case rateOfTurn = "navigation.rateOfTurn"

        /// The unit Signal K states for the path.
        public var units: String { self == .rateOfTurn ? "rad/s" : "rad" }

        /// A sentence describing the path, for `meta`.
        public var description: String {
            switch self {
            case .headingTrue: "The current true heading of the vessel, chosen and corrected by headingd"
            case .headingMagnetic: "The current magnetic heading of the vessel, chosen and corrected by headingd"
            case .magneticVariation: "The magnetic variation (declination) at the current position, East positive"
            case .magneticDeviation: "The compass deviation at the current heading, East positive"
            case .attitude: "Vessel attitude: roll, pitch and yaw"
            case .rateOfTurn: "Rate of turn (+ve is change to starboard)"
            }
        }
    }

    /// The Signal K context of every delta: `vessels.` and the vessel's URN.
    public let context: String

    /// Creates an encoder for one vessel.
    /// - Parameter selfURN: The vessel's identity, `urn:mrn:signalk:uuid:` and a UUID.
    public init(selfURN: String) {
        context = "vessels." + selfURN
    }

    /// Whether `urn` is a vessel identity Signal K accepts: `urn:mrn:signalk:uuid:` and a version 4
    /// UUID, or `urn:mrn:imo:mmsi:` and nine digits from 2 to 7.
    public static func isVesselURN(_ urn: String) -> Bool {
        if urn.hasPrefix("urn:mrn:imo:mmsi:") {
            let digits = urn.dropFirst("urn:mrn:imo:mmsi:".count)
            return digits.count == 9 && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) && ("2"..."7").contains(digits.first!)
        }
        guard urn.hasPrefix("urn:mrn:signalk:uuid:") else { return false }
        let uuid = Array(urn.dropFirst("urn:mrn:signalk:uuid:".count).utf8)
        guard uuid.count == 36 else { return false }
        for (index, byte) in uuid.enumerated() {
            let isHex = (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
            switch index {
            case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return false }
            case 14: guard byte == UInt8(ascii: "4") else { return false }
            case 19: guard [UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "A"), UInt8(ascii: "B")].contains(byte) else { return false }
            default: guard isHex else { return false }
            }
        }
        return true
    }

    /// The vessel URN for `uuid`: `urn:mrn:signalk:uuid:` and the UUID in lowercase.
    public static func selfURN(for uuid: UUID) -> String {
        "urn:mrn:signalk:uuid:" + uuid.uuidString.lowercased()
    }

    /// A `$source` reference for a HeadingKit source name: `headingd.` and the name with every
    /// run of characters Signal K does not allow there (`[A-Za-z0-9-_.]`) made one `-`, so
    /// `gpsd://127.0.0.1:2947` is `headingd.gpsd-127.0.0.1-2947`.
    public static func sourceReference(for source: String) -> String {
        // Byte by byte: a heading's every delta and model update asks, and the allowed set is ASCII.
        var reference = Array("headingd.".utf8)
        reference.reserveCapacity(reference.count + source.utf8.count)
        var replacing = false
        for byte in source.utf8 {
            let allowed = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            if allowed {
                reference.append(byte)
                replacing = false
            } else if !replacing {
                // A scalar beyond ASCII is several bytes, none of them allowed: one `-` for the run, as before.
                reference.append(UInt8(ascii: "-"))
                replacing = true
            }
        }
        return String(decoding: reference, as: UTF8.self)
    }

    /// The paths `heading` gives a value for (with `rateOfTurn` when it is known).
    public func paths(for heading: Heading, rateOfTurn: Double? = nil) -> [Path] {
        Path.allCases.filter { value(of: $0, in: heading, rateOfTurn: rateOfTurn) != nil }
    }

    /// Each path `heading` gives a value for, with the value as JSON, in ``Path`` order.
    public func values(for heading: Heading, rateOfTurn: Double? = nil) -> [(Path, String)] {
        Path.allCases.compactMap { path in value(of: path, in: heading, rateOfTurn: rateOfTurn).map { (path, $0) } }
    }

    /// The delta for one heading.
    /// - Parameters:
    ///   - heading: The heading.
    ///   - rateOfTurn: Its rate of turn in radians a second, if known.
    ///   - paths: Only these paths (a client's subscription); every known path when `nil`.
    ///   - includingMeta: Whether to add `meta` (units, description) for each path written.
    /// - Returns: The delta as one line of JSON, without a line end; `nil` when no path is left.
    public func delta(
        for heading: Heading, rateOfTurn: Double? = nil, paths: Set<Path>? = nil, includingMeta: Bool = false
    ) -> String? {
        var selected = values(for: heading, rateOfTurn: rateOfTurn)
        if let paths { selected.removeAll { !paths.contains($0.0) } }
        return delta(for: heading, values: selected, includingMeta: includingMeta)
    }

    /// The delta for one heading from values already written (``values(for:rateOfTurn:)``, or
    /// some of them), so that one heading's numbers are formatted once however many deltas carry them.
    /// - Returns: The delta as one line of JSON; `nil` when `values` is empty.
    public func delta(for heading: Heading, values: [(Path, String)], includingMeta: Bool = false) -> String? {
        guard !values.isEmpty else { return nil }
        return update(
            source: heading.source, timestamp: heading.timestamp, values: values, meta: includingMeta ? values.map(\.0) : [],
            modelVariation: heading.variationOrigin == .model
        )
    }

    /// The WebSocket stream's first message: who is speaking, for which vessel, and when.
    public func hello(at timestamp: Date) -> String {
        "{\"name\":\"headingd\",\"version\":\"\(SignalKModel.version)\",\"self\":\(JSONText.quoted(context)),"
            + "\"roles\":[\"master\",\"main\"],\"timestamp\":\(SignalKJSON.timestamp(timestamp))}"
    }

    /// The discovery document served at `/signalk`, for clients that reached headingd at `authority` (`host:port`).
    public static func discovery(authority: String, serverVersion: String) -> String {
        "{\"endpoints\":{\"v1\":{\"version\":\"\(SignalKModel.version)\","
            + "\"signalk-http\":\(JSONText.quoted("http://\(authority)/signalk/v1/api/")),"
            + "\"signalk-ws\":\(JSONText.quoted("ws://\(authority)/signalk/v1/stream"))}},"
            + "\"server\":{\"id\":\"headingd\",\"version\":\(JSONText.quoted(serverVersion))}}"
    }

    /// The delta that says `paths` have no current value (each `null`), for a heading gone stale:
    /// Signal K clients show "no data" rather than the last heading as if it were current.
    public func unavailable(_ paths: [Path], source: String, at timestamp: Date) -> String {
        update(source: source, timestamp: timestamp, values: paths.map { ($0, "null") }, meta: [])
    }

    /// The delta that raises, changes or clears one notification.
    public func delta(for notification: SignalKNotification) -> String {
        let value = "{\"state\":\(JSONText.quoted(notification.state.rawValue)),\"method\":["
            + notification.method.map { JSONText.quoted($0.rawValue) }.joined(separator: ",")
            + "],\"message\":\(JSONText.quoted(notification.message))}"
        return "{\"context\":\(JSONText.quoted(context)),\"updates\":[{\"$source\":"
            + JSONText.quoted(Self.sourceReference(for: notification.source))
            + ",\"timestamp\":\(SignalKJSON.timestamp(notification.timestamp)),\"values\":[{\"path\":"
            + JSONText.quoted(notification.path) + ",\"value\":" + value + "}]}]}"
    }

    private func update(source: String, timestamp: Date, values: [(Path, String)], meta: [Path], modelVariation: Bool = false) -> String {
        let reference = JSONText.quoted(Self.sourceReference(for: source))
        let stamp = SignalKJSON.timestamp(timestamp)
        func entries(_ values: [(Path, String)]) -> String {
            values.map { "{\"path\":\"\($0.0.rawValue)\",\"value\":\($0.1)}" }.joined(separator: ",")
        }
        // A variation from the World Magnetic Model is the model's, not the sensor's: an update of its own.
        let fromModel = modelVariation ? values.filter { $0.0 == .magneticVariation } : []
        let fromSource = modelVariation ? values.filter { $0.0 != .magneticVariation } : values
        var json = "{\"context\":" + JSONText.quoted(context) + ",\"updates\":["
        json += "{\"$source\":" + reference + ",\"timestamp\":" + stamp + ",\"values\":[" + entries(fromSource) + "]"
        if !meta.isEmpty {
            json += ",\"meta\":["
            json += meta.map { path in
                "{\"path\":\"\(path.rawValue)\",\"value\":{\"units\":\"\(path.units)\",\"description\":"
                    + JSONText.quoted(path.description) + "}}"
            }.joined(separator: ",")
            json += "]"
        }
        json += "}"
        if !fromModel.isEmpty {
            json += ",{\"$source\":\"\(Self.magneticModelSource)\",\"timestamp\":" + stamp + ",\"values\":[" + entries(fromModel) + "]}"
        }
        return json + "]}"
    }

    /// The `$source` of a magnetic variation headingd took from the World Magnetic Model.
    public static let magneticModelSource = "headingd.wmm2025"

    /// The `$source` of `path`'s value in `heading`: the model's for a variation it gave, else the heading's source's.
    public static func sourceReference(of path: Path, in heading: Heading) -> String {
        path == .magneticVariation && heading.variationOrigin == .model ? magneticModelSource : sourceReference(for: heading.source)
    }

    /// Whether `heading` gives `path` a value: what ``values(for:rateOfTurn:)`` would write, without writing it.
    func hasValue(_ path: Path, in heading: Heading, rateOfTurn: Double?) -> Bool {
        switch path {
        case .headingTrue: heading.trueHeading?.isFinite == true
        case .headingMagnetic: heading.magneticHeading?.isFinite == true
        case .magneticVariation: heading.magneticVariation?.isFinite == true
        case .magneticDeviation: heading.deviation?.isFinite == true
        case .attitude: heading.roll != nil || heading.pitch != nil
        case .rateOfTurn: rateOfTurn?.isFinite == true
        }
    }

    /// `path`'s value in `heading` as JSON, or `nil` when the heading does not say.
    func value(of path: Path, in heading: Heading, rateOfTurn: Double?) -> String? {
        func radians(_ degrees: Double?) -> String? {
            guard let degrees, degrees.isFinite else { return nil }
            return SignalKJSON.number(degrees * .pi / 180)
        }
        switch path {
        case .headingTrue: return radians(heading.trueHeading)
        case .headingMagnetic: return radians(heading.magneticHeading)
        case .magneticVariation: return radians(heading.magneticVariation)
        case .magneticDeviation: return radians(heading.deviation)
        case .attitude:
            guard heading.roll != nil || heading.pitch != nil else { return nil }
            let parts = [("roll", heading.roll), ("pitch", heading.pitch), ("yaw", heading.trueHeading.map { Degrees.signedDifference(from: 0, to: $0) })]
                .compactMap { name, degrees in radians(degrees).map { "\"\(name)\":\($0)" } }
            return "{" + parts.joined(separator: ",") + "}"
        case .rateOfTurn:
            guard let rateOfTurn, rateOfTurn.isFinite else { return nil }
            return SignalKJSON.number(rateOfTurn)
        }
    }
}
