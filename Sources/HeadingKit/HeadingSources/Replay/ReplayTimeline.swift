// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// When each line of a recording is due, as seconds since the replay started at recorded speed.
///
/// Recorded times advance the timeline by their differences; a time that goes backwards or jumps
/// more than ``maximumGap`` starts a new stretch where the timeline stands (a loop, a date first
/// learned after times of day, a gap in the recording). Until the recording has given any time,
/// each heading is due ``untimedInterval`` after the previous one.
package struct ReplayTimeline: Sendable {
    /// The longest recorded gap replayed as it was; longer ones are skipped.
    package static let maximumGap = 3600.0

    /// Seconds between headings in a recording without times.
    package let untimedInterval: Double
    /// Seconds from the start of the replay to the current line.
    package private(set) var offset = 0.0

    private var lastTime: Double?
    private var hasSeenTime = false
    private var hasSeenUntimedHeading = false

    /// Creates a timeline.
    /// - Parameter untimedInterval: Seconds between headings while the recording gives no time.
    package init(untimedInterval: Double) {
        self.untimedInterval = untimedInterval
    }

    /// Moves the timeline to a line and returns when it is due.
    /// - Parameters:
    ///   - time: The line's recording time in seconds, if it has one.
    ///   - carriesHeading: Whether the line produced a heading.
    /// - Returns: Seconds from the start of the replay.
    package mutating func advance(time: Double?, carriesHeading: Bool) -> Double {
        if let time {
            hasSeenTime = true
            if let lastTime, time >= lastTime, time - lastTime <= Self.maximumGap { offset += time - lastTime }
            lastTime = time
        } else if carriesHeading, !hasSeenTime {
            if hasSeenUntimedHeading { offset += untimedInterval }
            hasSeenUntimedHeading = true
        }
        return offset
    }

    /// Starts a new stretch at the current offset: for a replay that loops to the file's start.
    package mutating func restart() {
        lastTime = nil
        hasSeenTime = false
        if hasSeenUntimedHeading { offset += untimedInterval }
        hasSeenUntimedHeading = false
    }
}
