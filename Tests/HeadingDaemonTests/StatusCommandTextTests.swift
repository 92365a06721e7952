// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import HeadingDaemon

/// `headingd status`'s heading line never says "ok" when its exit status says no source is healthy.
struct StatusCommandTextTests {
    static func report(headingState: String, sourceState: String) -> StatusReport {
        StatusReport(
            version: "test", time: 100, startedAt: 0, uptimeSeconds: 100, staleAfterSeconds: 2,
            heading: .init(state: headingState, trueHeading: 1.5, magneticHeading: nil, magneticVariation: nil, variationOrigin: nil,
                           source: "simulation", timestamp: 99.8, ageSeconds: 0.2),
            sources: [.init(name: "simulation", state: sourceState, secondsInState: 0.1, steering: true, headingsPerSecond: 0, headings: 10, errors: 1, lastFault: nil)],
            faults: [], outputs: []
        )
    }

    @Test func aFreshHeadingFromASourceInDropoutSaysWhyItIsNotHealthy() {
        let dropout = Self.report(headingState: "ok", sourceState: "faulted")
        #expect(!dropout.isHealthy)
        let line = StatusCommand.text(dropout).split(separator: "\n")[0]
        #expect(line == "Heading       : 1.5° true (NOT HEALTHY: 0.2 s old, but no source is healthy (simulation faulted))", "\(line)")
        let healthy = Self.report(headingState: "ok", sourceState: "healthy")
        #expect(healthy.isHealthy)
        #expect(StatusCommand.text(healthy).hasPrefix("Heading       : 1.5° true (ok, 0.2 s old)"))
    }

    /// The report is a peer's JSON: an age no Int holds is said, never a trap.
    @Test func anAgeNoIntHoldsIsSaidNotATrap() {
        #expect(StatusCommand.duration(1e300) == "11574074 d 1 h")
        #expect(StatusCommand.duration(.infinity) == "—")
        #expect(StatusCommand.duration(3725) == "1 h 2 min")
    }
}
