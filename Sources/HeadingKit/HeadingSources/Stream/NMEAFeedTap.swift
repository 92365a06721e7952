// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

package import Foundation
package import HeadingPorts

/// What an ``NMEAFeed`` hands to each source reading from it, on the feed's reader thread.
package protocol NMEAFeedTap: AnyObject, Sendable {
    /// The transport opened (or connected): bytes may follow.
    func feedOpened(at now: ContinuousClock.Instant)
    /// One line, overlong line or fragment, received at `date`.
    func feedReceived(_ piece: FeedPiece, at date: Date)
    /// The transport could not be opened, or ended; `retryIn` is the delay before the next try,
    /// `nil` when there will be none.
    func feedFailed(_ failure: PortFailure, retryIn: Double?)
    /// Every piece of one read has been handed over: a source that collected several headings
    /// reports them now, as one batch.
    func feedReadEnded()
    /// The reader woke without bytes, or after some: time for the source's own timers.
    func feedTick(at now: ContinuousClock.Instant)
}
