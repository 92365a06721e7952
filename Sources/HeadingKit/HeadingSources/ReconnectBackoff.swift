// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// How long to wait before the next connection attempt: doubling from `initial` up to `maximum`,
/// each delay jittered by up to ±`jitter` of itself so that many clients of one gpsd do not
/// reconnect in step. A pure value; the random source is injected.
public struct ReconnectBackoff: Sendable, Hashable {
    /// The first delay, in seconds.
    public let initial: Double
    /// The longest delay, in seconds (jitter included).
    public let maximum: Double
    /// The fraction of each delay that jitter may add or remove, from 0 to 1.
    public let jitter: Double
    private var next: Double

    /// Creates a backoff.
    /// - Parameters:
    ///   - initial: The first delay, in seconds. Default 0.25.
    ///   - maximum: The longest delay, in seconds. Default 5.
    ///   - jitter: The fraction of each delay jitter may change. Default 0.2.
    public init(initial: Double = 0.25, maximum: Double = 5, jitter: Double = 0.2) {
        precondition(initial > 0 && maximum >= initial && (0...1).contains(jitter), "invalid backoff")
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
        self.next = initial
    }

    /// The delay before the next attempt, in seconds; the one after it doubles.
    /// - Parameter generator: The random source for the jitter.
    public mutating func nextDelay(using generator: inout some RandomNumberGenerator) -> Double {
        let base = next
        next = min(next * 2, maximum)
        let jittered = jitter > 0 ? base * Double.random(in: (1 - jitter)...(1 + jitter), using: &generator) : base
        return min(max(jittered, 0.001), maximum)
    }

    /// Starts again from ``initial``: after a connection that worked.
    public mutating func reset() { next = initial }
}
