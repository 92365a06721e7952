// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Clocks
import Foundation
import HeadingKit
import Testing

/// Replay speed measured on an injected clock: a heading appears once the clock reaches its
/// recorded time divided by the speed, and not before.
struct ReplayPacingTests {
    /// Eleven headings, one a second by the recording's ZDA times: recorded span 10 s.
    private func recording() throws -> TemporaryFile {
        var lines: [String] = []
        for second in 0...10 {
            lines.append(nmea("GPZDA,1200\(second < 10 ? "0" : "")\(second).00,01,01,2025,00,00"))
            lines.append(nmea("GPHDT,\(Double(second)),T"))
        }
        return try TemporaryFile(lines: lines)
    }

    /// Drives a replay on a test clock, checking at each recorded second that exactly the due headings arrived.
    /// Returns the clock time the replay needed.
    private func clockTimeNeeded(multiplier: Double) async throws -> Duration {
        let file = try recording()
        let clock = TestClock()
        let source = ReplayHeadingSource(
            configuration: .init(path: file.path, speed: .recorded(multiplier: multiplier)), clock: clock
        )
        let recorder = EventRecorder()
        source.delegate = recorder
        source.start()
        let interval = Duration.seconds(1 / multiplier)
        let start = clock.now
        for due in 1...11 {
            #expect(await recorder.wait { $0.count >= due }, "heading \(due) due at \(interval * (due - 1))")
            #expect(recorder.events.count == due, "nothing before its time")
            // Just past the next due time: TestClock suspends a sleep whose deadline equals now.
            if due < 11 { await clock.advance(to: start.advanced(by: interval * due + .milliseconds(1))) }
        }
        let summary = await source.waitUntilFinished()
        #expect(summary.headings == 11)
        #expect(recorder.headings.map(\.trueHeading) == (0...10).map { (index: Int) in Double(index) })
        return start.duration(to: clock.now) - .milliseconds(1)
    }

    @Test func recordedSpeedTakesTheRecordedTime() async throws {
        let needed = try await clockTimeNeeded(multiplier: 1)
        #expect(needed == .seconds(10))
    }

    @Test func tenTimesFasterTakesATenth() async throws {
        let needed = try await clockTimeNeeded(multiplier: 10)
        #expect(needed == .seconds(1))
    }

    @Test func flatOutNeedsNoClockTimeAtAll() async throws {
        let file = try recording()
        let clock = TestClock()
        let source = ReplayHeadingSource(configuration: .init(path: file.path, speed: .flatOut), clock: clock)
        let recorder = EventRecorder()
        source.delegate = recorder
        source.start()
        let summary = await source.waitUntilFinished()  // the clock never moves
        #expect(summary.headings == 11)
        #expect(clock.now == .init())
    }

    @Test func aRecordingWithoutTimesIsPacedAtTheUntimedRate() async throws {
        let file = try TemporaryFile(lines: (0..<5).map { nmea("GPHDT,\($0).0,T") })
        let clock = TestClock()
        let source = ReplayHeadingSource(configuration: .init(path: file.path, untimedRate: 4), clock: clock)
        let recorder = EventRecorder()
        source.delegate = recorder
        source.start()
        for due in 1...5 {
            #expect(await recorder.wait { $0.count >= due })
            #expect(recorder.events.count == due)
            if due < 5 { await clock.advance(by: .milliseconds(251)) }
        }
        #expect(await source.waitUntilFinished().headings == 5)
    }
}

struct ReplayTimelineTests {
    @Test func recordedTimesAdvanceByTheirDifferences() {
        var timeline = ReplayTimeline(untimedInterval: 0.1)
        #expect(timeline.advance(time: 1000, carriesHeading: false) == 0)
        #expect(timeline.advance(time: nil, carriesHeading: true) == 0, "headings between times are due with them")
        #expect(timeline.advance(time: 1001.5, carriesHeading: false) == 1.5)
        #expect(timeline.advance(time: 1003, carriesHeading: true) == 3)
    }

    @Test func backwardsAndHugeJumpsStartANewStretch() {
        var timeline = ReplayTimeline(untimedInterval: 0.1)
        _ = timeline.advance(time: 500, carriesHeading: false)
        #expect(timeline.advance(time: 502, carriesHeading: false) == 2)
        #expect(timeline.advance(time: 100, carriesHeading: false) == 2, "backwards: no wait")
        #expect(timeline.advance(time: 101, carriesHeading: false) == 3)
        #expect(timeline.advance(time: 1_000_000, carriesHeading: false) == 3, "a jump past maximumGap: no wait")
    }

    @Test func untimedHeadingsFollowTheRate() {
        var timeline = ReplayTimeline(untimedInterval: 0.25)
        #expect(timeline.advance(time: nil, carriesHeading: true) == 0)
        #expect(timeline.advance(time: nil, carriesHeading: false) == 0)
        #expect(timeline.advance(time: nil, carriesHeading: true) == 0.25)
        #expect(timeline.advance(time: nil, carriesHeading: true) == 0.5)
        timeline.restart()
        #expect(timeline.advance(time: nil, carriesHeading: true) == 0.75, "a loop continues the timeline")
    }
}
