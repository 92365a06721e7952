// headingd — HeadingOutputs tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import Testing

/// Signal K subscriptions: reading clients' requests, wildcards, and each policy's timing.
struct SignalKSubscriptionTests {
    @Test func wildcardsMatchAnyRunOfCharacters() {
        #expect(SignalKSubscription(path: "*").matches("navigation.headingTrue"))
        #expect(SignalKSubscription(path: "navigation.*").matches("navigation.attitude"))
        #expect(SignalKSubscription(path: "navigation.heading*").matches("navigation.headingMagnetic"))
        #expect(!SignalKSubscription(path: "navigation.heading*").matches("navigation.rateOfTurn"))
        #expect(SignalKSubscription(path: "*.heading.*").matches("notifications.navigation.heading.stale"))
        #expect(!SignalKSubscription(path: "navigation.headingTrue").matches("navigation.headingTrueX"))
        // Many stars on a long path that does not match: answered at once, not exponentially.
        #expect(!SignalKSubscription(path: String(repeating: "*a", count: 100) + "b").matches(String(repeating: "a", count: 200)))
    }

    @Test func requestsAreReadAndCheckedEntryByEntry() throws {
        let message = try SignalKClientMessage(parsing: #"{"context":"vessels.self","subscribe":[{"path":"navigation.headingTrue","period":500,"minPeriod":200,"policy":"fixed"}]}"#)
        #expect(message == .subscribe(context: "vessels.self", [SignalKSubscription(path: "navigation.headingTrue", period: .milliseconds(500), minimumPeriod: .milliseconds(200), policy: .fixed)]))
        #expect(try SignalKClientMessage(parsing: #"{"unsubscribe":[{"path":"*"}]}"#) == .unsubscribe(context: "vessels.self", paths: ["*"]))
        for bad in [
            "nope", "[]", "{}", #"{"subscribe":[]}"#, #"{"subscribe":[{"path":"a b"}]}"#, #"{"subscribe":[{"path":"x","policy":"sometimes"}]}"#,
            #"{"subscribe":[{"path":"x","period":-1}]}"#, #"{"subscribe":[{"path":"x","minPeriod":1e300}]}"#, #"{"subscribe":[{"path":"x","period":true}]}"#,
            #"{"put":{"path":"x","value":1}}"#,
        ] {
            #expect(throws: SignalKClientMessage.Refusal.self, "\(bad)") { try SignalKClientMessage(parsing: bad) }
        }
    }

    @Test func instantRespectsMinPeriodAndSendsTheHeldValueWhenItsTimeComes() throws {
        var set = SignalKSubscriptionSet(limit: 4)
        try set.subscribe([SignalKSubscription(path: "navigation.headingTrue", minimumPeriod: .seconds(1), policy: .instant)])
        let path = "navigation.headingTrue"
        #expect(set.changed([path, "navigation.headingMagnetic"], at: .zero) == [path])
        #expect(set.changed([path], at: .milliseconds(100)).isEmpty)
        #expect(set.nextDeadline(known: [path]) == .seconds(1))
        #expect(set.due(at: .milliseconds(999), known: [path]).isEmpty)
        #expect(set.due(at: .seconds(1), known: [path]) == [path])
        #expect(set.nextDeadline(known: [path]) == nil, "instant: nothing more without a change")
    }

    @Test func idealResendsAfterASilentPeriodAndFixedKeepsItsGrid() throws {
        var ideal = SignalKSubscriptionSet(limit: 4)
        try ideal.subscribe([SignalKSubscription(path: "*", period: .seconds(2), policy: .ideal)])
        #expect(ideal.due(at: .zero, known: ["a"]) == ["a"], "the current value at once")
        #expect(ideal.changed(["a"], at: .milliseconds(500)) == ["a"])
        #expect(ideal.due(at: .milliseconds(2400), known: ["a"]).isEmpty)
        #expect(ideal.due(at: .milliseconds(2500), known: ["a"]) == ["a"], "silent for its period")

        var fixed = SignalKSubscriptionSet(limit: 4)
        try fixed.subscribe([SignalKSubscription(path: "*", period: .seconds(1), policy: .fixed)])
        #expect(fixed.changed(["a"], at: .zero) == ["a"])
        #expect(fixed.changed(["a"], at: .milliseconds(300)).isEmpty, "fixed ignores changes")
        #expect(fixed.due(at: .milliseconds(1050), known: ["a"]) == ["a"])
        #expect(fixed.nextDeadline(known: ["a"]) == .seconds(2), "the grid, not the late wake")
    }

    @Test func theLatestSubscriptionRulesAndTheLimitHolds() throws {
        var set = SignalKSubscriptionSet(limit: 2)
        try set.subscribe([SignalKSubscription(path: "*", policy: .instant)])
        try set.subscribe([SignalKSubscription(path: "navigation.*", minimumPeriod: .seconds(5), policy: .instant)])
        #expect(set.rule(for: "navigation.headingTrue")?.minimumPeriod == .seconds(5))
        #expect(set.rule(for: "notifications.navigation.heading.stale")?.minimumPeriod == .zero)
        #expect(throws: SignalKSubscriptionSet.LimitError.self) { try set.subscribe([SignalKSubscription(path: "x")]) }
        try set.subscribe([SignalKSubscription(path: "*", policy: .fixed)])  // replaces, within the limit
        #expect(set.subscriptions.count == 2)
        set.unsubscribe(["*"])
        #expect(set.subscriptions.isEmpty)
    }

    @Test func theModelServesSubPathsLeavesStaleValuesOutAndKeepsNotifications() throws {
        let urn = SignalKDeltaEncoder.selfURN(for: UUID())
        var model = SignalKModel(selfURN: urn)
        model.update(with: Heading(trueHeading: 180, magneticHeading: nil, timestamp: Date(timeIntervalSince1970: 0), source: "simulation"), rateOfTurn: nil)
        #expect(model.render(subPath: ["vessels", "self", "navigation", "headingTrue", "value"]).map { abs(Double($0)! - .pi) < 1e-12 } == true)
        #expect(model.render(subPath: ["vessels", urn, "uuid"]) == "\"\(urn)\"")
        #expect(model.render(subPath: ["vessels", "self", "nowhere"]) == nil)
        #expect(model.makeUnavailable(at: Date()) == [.headingTrue])
        #expect(model.render(subPath: ["vessels", "self", "navigation", "headingTrue"]) == nil, "a stale value is absent")
        let fault = HeadingFault(code: .stale, source: "simulation", reason: "quiet", timestamp: Date(timeIntervalSince1970: 1))
        model.update(with: SignalKNotification(raising: fault))
        #expect(model.render(subPath: ["vessels", "self", "notifications", "navigation", "heading", "stale", "value", "state"]) == "\"alarm\"")
    }

    /// The model writes a heading's numbers when it is read: the same JSON as from values written at once,
    /// every path and the World Magnetic Model's `$source` for its variation included.
    @Test func valuesWrittenWhenReadAreTheValuesWrittenAtOnce() throws {
        let urn = SignalKDeltaEncoder.selfURN(for: UUID())
        var lazy = SignalKModel(selfURN: urn), written = SignalKModel(selfURN: urn)
        let heading = Heading(
            trueHeading: 93.25, magneticHeading: 90.5, timestamp: Date(timeIntervalSince1970: 1_790_000_000.25), source: "gpsd://[::1]:2947",
            pitch: 2, roll: -4.5, magneticVariation: 2.75, deviation: -1.5, variationOrigin: .model
        )
        lazy.update(with: heading, rateOfTurn: 0.01)
        written.update(with: heading, values: lazy.encoder.values(for: heading, rateOfTurn: 0.01))
        #expect(lazy.knownPaths == SignalKDeltaEncoder.Path.allCases)
        #expect(lazy.render() == written.render())
        #expect(lazy.render().contains("\"$source\":\"headingd.wmm2025\""))
        #expect(lazy.makeUnavailable(at: heading.timestamp) == written.makeUnavailable(at: heading.timestamp))
        #expect(lazy.render() == written.render())
    }
}
