// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import HeadingPorts
import Testing

@testable import HeadingKit

/// The one Duration → poll(2) milliseconds conversion: rounded up, never negative, never a trap.
struct DurationPollTests {
    @Test func aWaitIsRoundedUpAndBounded() {
        #expect(Duration.zero.pollMilliseconds == 0)
        #expect(Duration.nanoseconds(1).pollMilliseconds == 1, "a wait never ends before its deadline to spin on a 0")
        #expect(Duration.milliseconds(250).pollMilliseconds == 250)
        #expect(Duration.microseconds(1500).pollMilliseconds == 2)
        #expect(Duration.seconds(3).pollMilliseconds == 3000)
        #expect(Duration.seconds(-1).pollMilliseconds == 0 && Duration.nanoseconds(-5).pollMilliseconds == 0)
        #expect(Duration.seconds(Int64.max).pollMilliseconds == Int32.max)
        #expect(Duration.seconds(3_000_000).pollMilliseconds == Int32.max)
    }
}
