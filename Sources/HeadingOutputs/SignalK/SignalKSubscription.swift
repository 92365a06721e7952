// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One entry of a Signal K `subscribe` request: which paths, and how often.
public struct SignalKSubscription: Sendable, Hashable {
    /// When values are sent.
    public enum Policy: String, Sendable, Hashable {
        /// As each value changes, at most once per ``SignalKSubscription/minimumPeriod``.
        case instant
        /// As `instant`, and the last value again when none has been sent for a ``SignalKSubscription/period``.
        case ideal
        /// The last value once per ``SignalKSubscription/period``, changed or not.
        case fixed
    }

    /// The path pattern: a dotted path in which `*` stands for any run of characters.
    public let path: String
    /// The period of `ideal` and `fixed` (Signal K's `period`, 1000 ms by default).
    public let period: Duration
    /// The shortest time between two sends of a path (Signal K's `minPeriod`; none by default).
    public let minimumPeriod: Duration
    /// The policy (Signal K's default is `ideal`).
    public let policy: Policy

    /// Creates a subscription.
    public init(path: String, period: Duration = .seconds(1), minimumPeriod: Duration = .zero, policy: Policy = .ideal) {
        self.path = path
        self.period = period
        self.minimumPeriod = minimumPeriod
        self.policy = policy
    }

    /// Whether the pattern matches `path`.
    public func matches(_ path: String) -> Bool { Self.glob(Array(self.path.utf8)[...], Array(path.utf8)[...]) }

    private static func glob(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        // Iterative with one backtrack point: linear in practice, never exponential.
        var p = pattern.startIndex
        var t = text.startIndex
        var star: (pattern: Int, text: Int)?
        while t < text.endIndex {
            if p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") {
                star = (p, t)
                p += 1
            } else if p < pattern.endIndex, pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let last = star {
                p = last.pattern + 1
                t = last.text + 1
                star = (last.pattern, last.text + 1)
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.endIndex
    }
}

/// A message a Signal K client sent on the stream, read and checked.
public enum SignalKClientMessage: Sendable, Hashable {
    /// Subscribe to these (for the context `vessels.self`, the vessel's own context, `*` or
    /// `vessels.*`; other contexts match nothing headingd has).
    case subscribe(context: String, [SignalKSubscription])
    /// Stop these path patterns (`*` stops everything).
    case unsubscribe(context: String, paths: [String])

    /// Why a message was refused; ``description`` is the reply's message.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong, for the client.
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The most paths one message may name.
    public static let maximumEntries = 64

    /// Reads a client's text message.
    /// - Throws: ``Refusal`` for anything that is not JSON, not an object, or not a subscribe or
    ///   unsubscribe request with well-formed entries.
    public init(parsing text: String) throws(Refusal) {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? [String: Any] else {
                throw Refusal("not a JSON object")
            }
            object = parsed
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw Refusal("not JSON")
        }
        let context = (object["context"] as? String) ?? "vessels.self"
        if let entries = object["subscribe"] {
            guard let list = entries as? [Any], !list.isEmpty else { throw Refusal("subscribe must be a list of {path, period, minPeriod, policy}") }
            guard list.count <= Self.maximumEntries else { throw Refusal("at most \(Self.maximumEntries) paths in one request") }
            var subscriptions: [SignalKSubscription] = []
            for entry in list {
                guard let entry = entry as? [String: Any], let path = entry["path"] as? String, Self.isPattern(path) else {
                    throw Refusal("each subscription needs a path of letters, digits, '.', '-', '_' and '*'")
                }
                let period = try Self.milliseconds(entry["period"], name: "period") ?? .seconds(1)
                let minimum = try Self.milliseconds(entry["minPeriod"], name: "minPeriod") ?? .zero
                let policy: SignalKSubscription.Policy
                switch entry["policy"] {
                case nil: policy = minimum > .zero ? .instant : .ideal
                case let text as String:
                    guard let known = SignalKSubscription.Policy(rawValue: text) else { throw Refusal("policy must be instant, ideal or fixed") }
                    policy = known
                default: throw Refusal("policy must be instant, ideal or fixed")
                }
                guard policy == .instant || period > .zero else { throw Refusal("period must be above 0 for \(policy.rawValue)") }
                subscriptions.append(SignalKSubscription(path: path, period: period, minimumPeriod: minimum, policy: policy))
            }
            self = .subscribe(context: context, subscriptions)
        } else if let entries = object["unsubscribe"] {
            guard let list = entries as? [Any], !list.isEmpty, list.count <= Self.maximumEntries else {
                throw Refusal("unsubscribe must be a list of {path}")
            }
            let paths = try list.map { entry throws(Refusal) -> String in
                guard let entry = entry as? [String: Any], let path = entry["path"] as? String, Self.isPattern(path) else {
                    throw Refusal("each unsubscription needs a path")
                }
                return path
            }
            self = .unsubscribe(context: context, paths: paths)
        } else {
            throw Refusal("headingd is read-only: it knows subscribe and unsubscribe requests")
        }
    }

    /// Whether `context` is the vessel whose context is `selfContext`.
    public static func names(_ context: String, selfContext: String) -> Bool {
        context == "vessels.self" || context == "self" || context == "*" || context == "vessels.*" || context == selfContext
    }

    private static func isPattern(_ path: String) -> Bool {
        !path.isEmpty && path.utf8.count <= 256
            && path.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2E || $0 == 0x2D || $0 == 0x5F || $0 == 0x2A }
    }

    private static func milliseconds(_ value: Any?, name: String) throws(Refusal) -> Duration? {
        guard let value else { return nil }
        guard let number = value as? NSNumber, !(value is Bool), number.doubleValue.isFinite,
            (0...86_400_000).contains(number.doubleValue)
        else { throw Refusal("\(name) must be milliseconds, 0 to 86400000") }
        return .milliseconds(Int64(number.doubleValue))
    }
}

/// One client's subscriptions and when each path was last sent: decides, as values change and
/// time passes, which paths go to the client now. Pure: the caller gives the time and wakes at
/// ``nextDeadline``. When several subscriptions match a path, the latest one rules it.
public struct SignalKSubscriptionSet: Sendable {
    /// The most subscriptions a client may hold.
    public let limit: Int
    /// The subscriptions, oldest first.
    public private(set) var subscriptions: [SignalKSubscription] = []
    private var lastSent: [String: Duration] = [:]
    private var pending: Set<String> = []

    /// Why a subscription was refused.
    public struct LimitError: Error, Sendable, CustomStringConvertible {
        /// The limit.
        public let limit: Int
        /// For the client.
        public var description: String { "at most \(limit) subscriptions per client" }
    }

    /// An empty set.
    public init(limit: Int) { self.limit = limit }

    /// Adds subscriptions; one for a path already subscribed replaces it.
    /// - Throws: ``LimitError`` (and adds none) when the set would hold more than ``limit``.
    public mutating func subscribe(_ new: [SignalKSubscription]) throws(LimitError) {
        var next = subscriptions
        for subscription in new {
            next.removeAll { $0.path == subscription.path }
            next.append(subscription)
        }
        guard next.count <= limit else { throw LimitError(limit: limit) }
        subscriptions = next
    }

    /// Removes the subscriptions with these patterns (`*` removes every one).
    public mutating func unsubscribe(_ paths: [String]) {
        if paths.contains("*") { subscriptions.removeAll() } else { subscriptions.removeAll { paths.contains($0.path) } }
        pending = pending.filter { rule(for: $0) != nil }
    }

    /// The subscription that rules `path`, if any.
    public func rule(for path: String) -> SignalKSubscription? { subscriptions.last { $0.matches(path) } }

    /// The paths among `changed` to send now; the others wait for ``nextDeadline``.
    public mutating func changed(_ changed: [String], at now: Duration) -> [String] {
        var send: [String] = []
        for path in changed {
            guard let rule = rule(for: path) else { continue }
            switch rule.policy {
            case .fixed:
                if lastSent[path] == nil { send.append(path) }
            case .instant, .ideal:
                if let last = lastSent[path], now - last < rule.minimumPeriod {
                    pending.insert(path)
                } else {
                    send.append(path)
                }
            }
        }
        for path in send {
            lastSent[path] = now
            pending.remove(path)
        }
        return send
    }

    /// The paths among `known` (those with a value) whose time has come at `now`: one held back by
    /// `minPeriod`, an `ideal` one silent for its period, a `fixed` one at its period.
    public mutating func due(at now: Duration, known: [String]) -> [String] {
        var send: [String] = []
        for path in known {
            guard let rule = rule(for: path), let deadline = deadline(for: path, rule: rule), now >= deadline else { continue }
            send.append(path)
        }
        for path in send {
            // A fixed path keeps its grid; the others count from now.
            if let rule = rule(for: path), rule.policy == .fixed, let last = lastSent[path] {
                lastSent[path] = max(last + rule.period, now - rule.period)
            } else {
                lastSent[path] = now
            }
            pending.remove(path)
        }
        return send
    }

    /// The earliest time one of `known` becomes due; `nil` when none will without a change.
    public func nextDeadline(known: [String]) -> Duration? {
        known.compactMap { path in rule(for: path).flatMap { deadline(for: path, rule: $0) } }.min()
    }

    private func deadline(for path: String, rule: SignalKSubscription) -> Duration? {
        guard let last = lastSent[path] else { return rule.policy == .instant ? nil : .zero }
        if pending.contains(path) { return last + rule.minimumPeriod }
        switch rule.policy {
        case .instant: return nil
        case .ideal, .fixed: return last + rule.period
        }
    }
}
