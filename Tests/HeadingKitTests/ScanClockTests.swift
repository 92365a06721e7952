// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import HeadingKit

/// The time the fusion gets for each buffered scan: the kernel's timestamps as they run, the
/// clock's own where they jump, never back.
struct ScanClockTests {
    @Test func theKernelsTimestampsRunFromTheClockAtTheFirst() {
        var clock = ScanClock()
        #expect(clock.seconds(for: 5_000_000_000, now: 10) == 10)
        #expect(clock.seconds(for: 5_040_000_000, now: 10.5) == 10.04)  // the scan's own 40 ms, not the read's 0.5 s
        #expect(clock.seconds(for: 5_080_000_000, now: 10.5) == 10.08)
        #expect(clock.seconds(for: nil, now: 11) == 11)  // a scan without one: the clock's
    }

    @Test func aTimestampThatJumpsBackOrFarAheadStartsAgainFromTheClockAndTimeNeverGoesBack() {
        var clock = ScanClock()
        _ = clock.seconds(for: 5_000_000_000, now: 10)
        _ = clock.seconds(for: 8_000_000_000, now: 10.1)  // +3 s: followed
        #expect(clock.seconds(for: 1_000_000_000, now: 10.2) == 13)  // back: from the clock, but not before 13
        #expect(clock.seconds(for: 1_000_000_000 + 60_000_000_000, now: 14) == 14)  // +60 s: from the clock
        #expect(clock.seconds(for: 1_000_000_000 + 60_010_000_000, now: 14) == 14.01)
    }

    @Test func int64sEndsNeverTrap() {
        var clock = ScanClock()
        var last = -Double.infinity
        for timestamp: Int64 in [.max, .min, 0, -1, .max, .max - 1, .min + 1, 1 << 62, .min] {
            let seconds = clock.seconds(for: timestamp, now: 1)
            #expect(seconds.isFinite && seconds >= last && seconds < 10)
            last = seconds
        }
    }
}
