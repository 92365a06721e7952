// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Synchronization

/// Where a consumer keeps its one subscription to a ``HeadingEventCenter``: ``subscribe(to:latestOnly:_:)``
/// subscribes unless already subscribed (a consumer subscribed early by ``OutputSet`` whose `run()`
/// asks again), ``cancel()`` ends it, and so does the slot's end.
final class HeadingSubscriptionSlot: Sendable {
    private let subscription = Mutex<(any HeadingEventSubscription)?>(nil)

    /// An empty slot.
    init() {}

    deinit { cancel() }

    /// Subscribes `block` to `feed`, unless a subscription is held already.
    /// - Parameters:
    ///   - feed: Where the events come from.
    ///   - latestOnly: Whether a batch's older headings are skipped (``HeadingEventCenter``).
    ///   - block: Called with each event.
    func subscribe(to feed: any HeadingEventCenter, latestOnly: Bool, _ block: @escaping @Sendable (HeadingEvent) -> Void) {
        subscription.withLock { subscription in
            guard subscription == nil else { return }
            subscription = feed.consume(latestOnly: latestOnly, block)
        }
    }

    /// Ends the subscription held, if any; a later ``subscribe(to:latestOnly:_:)`` makes a new one.
    func cancel() {
        let ended = subscription.withLock { subscription in
            defer { subscription = nil }
            return subscription
        }
        ended?.cancel()
    }
}
