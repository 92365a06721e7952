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

    /// One leaf: a value (as JSON) with its time and source.
    struct Leaf: Sendable {
        var value: String
        var timestamp: Date
        var source: String
    }

    /// The encoder, which knows the vessel's context.
    public let encoder: SignalKDeltaEncoder
    /// The vessel's URN.
    public let selfURN: String
    private var values: [SignalKDeltaEncoder.Path: Leaf] = [:]
    private var raised: [String: SignalKNotification] = [:]
    private var sources: Set<String> = []

    /// An empty model for one vessel.
    public init(selfURN: String) {
        self.selfURN = selfURN
        encoder = SignalKDeltaEncoder(selfURN: selfURN)
    }

    /// The paths that have a value (not `null`) now.
    public var knownPaths: [SignalKDeltaEncoder.Path] { SignalKDeltaEncoder.Path.allCases.filter { values[$0].map { $0.value != "null" } ?? false } }

    /// Takes a heading: each path it gives a value for now has that value.
    public mutating func update(with heading: Heading, rateOfTurn: Double?) {
        update(with: heading, values: encoder.values(for: heading, rateOfTurn: rateOfTurn))
    }

    /// Takes a heading whose values are already written (``SignalKDeltaEncoder/values(for:rateOfTurn:)``).
    public mutating func update(with heading: Heading, values written: [(SignalKDeltaEncoder.Path, String)]) {
        for (path, value) in written {
            values[path] = Leaf(value: value, timestamp: heading.timestamp, source: SignalKDeltaEncoder.sourceReference(of: path, in: heading))
        }
        sources.insert(heading.source)
    }

    /// Sets every path that has a value to `null` (the heading went stale) and returns those paths.
    public mutating func makeUnavailable(at timestamp: Date) -> [SignalKDeltaEncoder.Path] {
        let known = knownPaths
        for path in known { values[path]?.value = "null"; values[path]?.timestamp = timestamp }
        return known
    }

    /// Takes a notification: raised, changed or cleared (a cleared one stays, as `normal`).
    public mutating func update(with notification: SignalKNotification) {
        raised[notification.path] = notification
        sources.insert(notification.source)
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
            guard let leaf = values[path], leaf.value != "null" else { continue }
            navigation.append((String(path.rawValue.dropFirst("navigation.".count)), Self.node(leaf)))
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

    private static func node(_ leaf: Leaf) -> Node {
        .object([
            ("value", .raw(leaf.value)), ("timestamp", .raw(SignalKJSON.timestamp(leaf.timestamp))),
            ("$source", .raw(JSONText.quoted(leaf.source))),
        ])
    }
}
