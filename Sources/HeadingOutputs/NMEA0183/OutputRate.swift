// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

/// An output's maximum rate: at most one send per ``interval``. A value offered before its slot
/// waits for it, and a newer one offered meanwhile replaces it (the newest wins). Pure: the caller
/// gives the time, as a duration since any fixed origin, and wakes at ``nextDeadline``.
public struct OutputRate<Value: Sendable>: Sendable {
    /// The shortest time between two sends.
    public let interval: Duration
    private var lastSent: Duration?
    private var pending: Value?

    /// Creates a rate.
    /// - Parameter maximumHertz: Sends per second at most; 0 or less sends every value at once.
    public init(maximumHertz: Double) {
        interval = maximumHertz > 0 && maximumHertz.isFinite ? .nanoseconds(Int64(1e9 / maximumHertz)) : .zero
    }

    /// Offers a value.
    /// - Parameters:
    ///   - value: The newest value.
    ///   - now: The time now.
    /// - Returns: The value, if it may be sent now; `nil` when it waits for ``nextDeadline``.
    public mutating func offer(_ value: Value, at now: Duration) -> Value? {
        if let lastSent, now - lastSent < interval {
            pending = value
            return nil
        }
        lastSent = now
        pending = nil
        return value
    }

    /// When a waiting value's slot comes; `nil` when nothing waits.
    public var nextDeadline: Duration? {
        guard pending != nil, let lastSent else { return nil }
        return lastSent + interval
    }

    /// The waiting value, if its slot has come.
    /// - Parameter now: The time now.
    /// - Returns: The value to send now, or `nil`.
    public mutating func due(at now: Duration) -> Value? {
        guard let pending, let deadline = nextDeadline, now >= deadline else { return nil }
        self.pending = nil
        lastSent = now
        return pending
    }
}
