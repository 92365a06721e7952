// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

/// An output's maximum rate: on average at most one send per ``interval``. A value offered
/// before its slot waits for it, and a newer one offered meanwhile replaces it (the newest wins).
/// Pure: the caller gives the time, as a duration since any fixed origin, and wakes at
/// ``nextDeadline``.
///
/// The slots lie on a grid one ``interval`` apart (the generic cell rate algorithm), and a value
/// may go up to half an interval before its slot. So a source that delivers at the output's own
/// rate, with the jitter every live source has, goes out as it comes, never held back for a slot
/// a few milliseconds away; and over any stretch of time no more than one value per interval goes
/// out, plus one. (A rule of "at least one interval since the last send" held a 10 Hz source
/// behind a 10 Hz output by 9 ms at the median: each late wake pushed the next slot later.)
public struct OutputRate<Value: Sendable>: Sendable {
    /// The time between two slots.
    public let interval: Duration
    /// The next slot on the grid; `nil` before the first send.
    private var slot: Duration?
    private var pending: Value?

    /// Creates a rate.
    /// - Parameter maximumHertz: Sends per second at most; 0 or less sends every value at once.
    public init(maximumHertz: Double) {
        interval = maximumHertz > 0 && maximumHertz.isFinite ? .nanoseconds(Int64(1e9 / maximumHertz)) : .zero
    }

    /// How early before its slot a value may go.
    private var tolerance: Duration { interval / 2 }

    /// Offers a value.
    /// - Parameters:
    ///   - value: The newest value.
    ///   - now: The time now.
    /// - Returns: The value, if it may be sent now; `nil` when it waits for ``nextDeadline``.
    public mutating func offer(_ value: Value, at now: Duration) -> Value? {
        if let slot, now < slot - tolerance {
            pending = value
            return nil
        }
        send(at: now)
        return value
    }

    /// When a waiting value may go; `nil` when nothing waits.
    public var nextDeadline: Duration? {
        guard pending != nil, let slot else { return nil }
        return slot - tolerance
    }

    /// The waiting value, if its time has come.
    /// - Parameter now: The time now.
    public mutating func due(at now: Duration) -> Value? {
        guard let pending, let deadline = nextDeadline, now >= deadline else { return nil }
        send(at: now)
        return pending
    }

    /// Moves the grid on by one slot from the later of now and the slot that was due.
    private mutating func send(at now: Duration) {
        slot = max(now, slot ?? now) + interval
        pending = nil
    }
}
