// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import HeadingKit

/// The Signal K full model headingd serves at `/signalk/v1/api/`: the vessel's heading paths with
/// their latest values, the notifications headingd raised, and its sources. Pure: fed with
/// headings and notifications, it renders the model or any sub-path of it as JSON. A path whose
/// heading went stale is absent until the next heading (the stream says `null` for it).
public struct SignalKModel: Sendable {
    /// The Signal K version headingd speaks.
    public static let version = "1.7.0"

    /// One leaf: the heading that gave its value, with the value written only when the model is
    /// rendered (a heading costs a copy per path, not a number formatted per path: most headings
    /// are never read from the model), or as it was given already written.
    struct Leaf: Sendable {
        var heading: Heading
        var rateOfTurn: Double?
        /// The value as JSON when it came written (``update(with:values:)``).
        var written: String?
        /// The heading went stale: `null` until the next.
        var isUnavailable = false
        var timestamp: Date
    }

    /// The encoder, which knows the vessel's context.
    public let encoder: SignalKDeltaEncoder
    /// The vessel's URN.
    public let selfURN: String
    private var values: [SignalKDeltaEncoder.Path: Leaf] = [:]
    private var raised: [String: SignalKNotification] = [:]
    private var sources: Set<String> = []
    /// The source last added to `sources`: a heading from it inserts nothing (no hashing a heading).
    private var lastSource: String?

    /// An empty model for one vessel.
    public init(selfURN: String) {
        self.selfURN = selfURN
        encoder = SignalKDeltaEncoder(selfURN: selfURN)
    }

    /// The paths that have a value (not `null`) now.
    public var knownPaths: [SignalKDeltaEncoder.Path] {
        SignalKDeltaEncoder.Path.allCases.filter { values[$0].map { !$0.isUnavailable && $0.written != "null" } ?? false }
    }

    /// Takes a heading: each path it gives a value for now has that value (written when rendered).
    public mutating func update(with heading: Heading, rateOfTurn: Double?) {
        for path in SignalKDeltaEncoder.Path.allCases where encoder.hasValue(path, in: heading, rateOfTurn: rateOfTurn) {
            values[path] = Leaf(heading: heading, rateOfTurn: rateOfTurn, timestamp: heading.timestamp)
        }
        noteSource(heading.source)
    }

    /// Takes a heading whose values are already written (``SignalKDeltaEncoder/values(for:rateOfTurn:)``).
    public mutating func update(with heading: Heading, values written: [(SignalKDeltaEncoder.Path, String)]) {
        for (path, value) in written {
            values[path] = Leaf(heading: heading, written: value, timestamp: heading.timestamp)
        }
        noteSource(heading.source)
    }

    private mutating func noteSource(_ source: String) {
        guard source != lastSource else { return }
        sources.insert(source)
        lastSource = source
    }

    /// Sets every path that has a value to `null` (the heading went stale) and returns those paths.
    public mutating func makeUnavailable(at timestamp: Date) -> [SignalKDeltaEncoder.Path] {
        let known = knownPaths
        for path in known { values[path]?.isUnavailable = true; values[path]?.timestamp = timestamp }
        return known
    }

    /// A leaf's value as JSON: as given, or written now from its heading; `null` when stale.
    private func value(of path: SignalKDeltaEncoder.Path, _ leaf: Leaf) -> String {
        if leaf.isUnavailable { return "null" }
        return leaf.written ?? encoder.value(of: path, in: leaf.heading, rateOfTurn: leaf.rateOfTurn) ?? "null"
    }

    /// Takes a notification: raised, changed or cleared (a cleared one stays, as `normal`).
    public mutating func update(with notification: SignalKNotification) {
        raised[notification.path] = notification
        noteSource(notification.source)
    }

    /// Every notification headingd has raised, by path order (cleared ones as `normal`).
    public var notifications: [SignalKNotification] { raised.keys.sorted().compactMap { raised[$0] } }

    /// The full model as JSON.
    public func render() -> String { tree().json }

    /// The JSON at a REST sub-path, such as `vessels/self/navigation/headingTrue` (`self` is the
    /// vessel's URN); `nil` when nothing is there.
    public func render(subPath components: [String]) -> String? {
        var node = tree()
        for component in components where !component.isEmpty {
            guard case .object(let members) = node,
                let next = members.first(where: { $0.0 == component || (component == "self" && $0.0 == selfURN) })?.1
            else { return nil }
            node = next
        }
        return node.json
    }

    /// A JSON tree: objects keep their keys' order.
    indirect enum Node: Sendable {
        case object([(String, Node)])
        case raw(String)

        var json: String {
            switch self {
            case .raw(let text): return text
            case .object(let members):
                return "{" + members.map { JSONText.quoted($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
            }
        }
    }

    private func tree() -> Node {
        var vessel: [(String, Node)] = [("uuid", .raw(JSONText.quoted(selfURN)))]
        var navigation: [(String, Node)] = []
        for path in SignalKDeltaEncoder.Path.allCases {
            // A value gone stale is left out: the schema has no null heading, and none is current.
            guard let leaf = values[path], case let value = self.value(of: path, leaf), value != "null" else { continue }
            navigation.append((String(path.rawValue.dropFirst("navigation.".count)), Self.node(path, leaf, value: value)))
        }
        if !navigation.isEmpty { vessel.append(("navigation", .object(navigation))) }
        if !raised.isEmpty {
            // notifications.navigation.heading.<code>
            let codes = notifications.map { notification -> (String, Node) in
                let value = Node.object([
                    ("state", .raw(JSONText.quoted(notification.state.rawValue))),
                    ("method", .raw("[" + notification.method.map { JSONText.quoted($0.rawValue) }.joined(separator: ",") + "]")),
                    ("message", .raw(JSONText.quoted(notification.message))),
                ])
                let leaf: Node = .object([
                    ("value", value), ("timestamp", .raw(SignalKJSON.timestamp(notification.timestamp))),
                    ("$source", .raw(JSONText.quoted(SignalKDeltaEncoder.sourceReference(for: notification.source)))),
                ])
                return (String(notification.path.dropFirst(SignalKNotification.pathPrefix.count)), leaf)
            }
            vessel.append(("notifications", .object([("navigation", .object([("heading", .object(codes))]))])))
        }
        let sourceNodes = sources.sorted().map { source -> (String, Node) in
            let reference = SignalKDeltaEncoder.sourceReference(for: source)
            return (String(reference.dropFirst("headingd.".count)), .object([("label", .raw(JSONText.quoted(source))), ("type", .raw("\"headingd\""))]))
        }
        return .object([
            ("version", .raw(JSONText.quoted(Self.version))),
            ("self", .raw(JSONText.quoted(encoder.context))),
            ("vessels", .object([(selfURN, .object(vessel))])),
            ("sources", .object([("headingd", .object(sourceNodes))])),
        ])
    }

    private static func node(_ path: SignalKDeltaEncoder.Path, _ leaf: Leaf, value: String) -> Node {
        .object([
            ("value", .raw(value)), ("timestamp", .raw(SignalKJSON.timestamp(leaf.timestamp))),
            ("$source", .raw(JSONText.quoted(SignalKDeltaEncoder.sourceReference(of: path, in: leaf.heading)))),
        ])
    }
}
