// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Says a retry's reason once, then summaries: a device that fails the same way at every attempt
/// (a file that opens but reads nothing, a gateway that accepts and closes) is one line, then one
/// line a ``interval`` with how many attempts failed so, not a line an attempt. A new reason passes
/// at once; so does the first after ``reset()`` (the device answered).
///
/// A pure value: time is given.
package struct RepeatedReasonGate: Sendable {
    /// The least time between two lines of one reason.
    package let interval: Duration
    private var last: String?
    private var lastPassedAt: ContinuousClock.Instant?
    private var held = 0

    /// Creates a gate.
    /// - Parameter interval: The least time between two lines of one reason. Default 60 s.
    package init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    /// The line to say for an attempt that failed for `reason`, or `nil` when it is held back.
    /// - Parameters:
    ///   - reason: Why the attempt failed (without what changes each time, such as the delay).
    ///   - now: When.
    /// - Returns: `reason` the first time; later, after `interval`, `reason` with the count of
    ///   attempts that failed the same way since it was last said.
    package mutating func admit(_ reason: String, at now: ContinuousClock.Instant) -> String? {
        guard reason == last, let passed = lastPassedAt else {
            last = reason
            lastPassedAt = now
            held = 0
            return reason
        }
        guard now - passed >= interval else {
            held += 1
            return nil
        }
        defer {
            lastPassedAt = now
            held = 0
        }
        return reason + " (still: \(held + 1) attempt\(held == 0 ? "" : "s") failed so since it was said)"
    }

    /// The device answered: its next failure is said whole.
    package mutating func reset() {
        last = nil
        lastPassedAt = nil
        held = 0
    }
}
