// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import HeadingDaemon

/// The status page's event streams share one report a tick.
struct SharedStatusReportTests {
    @Test func oneReportServesEveryStreamWithinItsAge() throws {
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        let shared = SharedStatusReport(board: StatusBoard(version: "test", startedAt: started), maximumAge: .milliseconds(125))
        let now = ContinuousClock.now
        let first = shared.json(at: now, date: started.addingTimeInterval(10))
        // 100 ms on the clock later (the report would say 100 s more of uptime): the same bytes.
        #expect(shared.json(at: now + .milliseconds(100), date: started.addingTimeInterval(110)) == first)
        // Past its age: a new report, which says so.
        let next = shared.json(at: now + .milliseconds(130), date: started.addingTimeInterval(110))
        #expect(next != first)
        let report = try JSONSerialization.jsonObject(with: next) as? [String: Any]
        #expect(report?["uptimeSeconds"] as? Double == 110)
    }
}
