// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Synchronization

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// The one typed fan-out stage inside headingd: the processor's events go to the
/// model-layer `NotificationCenter.heading` once, through the ``HeadingNotificationBridge`` (the
/// stdout log and library users observe it there), and to every other consumer through this: a
/// stage of the processor (HeadingKit's `package` stage API, as the bridge uses) that calls each
/// consumer's block directly — no notification, no `userInfo` boxing and unboxing, no center lock
/// per consumer.
///
/// Process-lived, as the outputs are: each pipeline's processor is attached when the pipeline
/// starts and detached when it ends (a reload), and consumers stay subscribed across reloads.
/// Consumers run where the processor delivers, after the bridge (it was attached first), in the
/// order they subscribed. The list is copied out of its lock before delivery (a retain, not an
/// allocation), so a consumer may subscribe or cancel from inside its block.
final class HeadingFanOut: HeadingEventCenter {
    private struct Consumer: Sendable {
        let id: Int
        let latestOnly: Bool
        let block: @Sendable (HeadingEvent) -> Void
    }

    private struct Consumers: Sendable {
        var nextID = 0
        var all: [Consumer] = []
    }

    private let consumers = Mutex(Consumers())

    /// Subscribes a consumer.
    func consume(latestOnly: Bool, _ block: @escaping @Sendable (HeadingEvent) -> Void) -> any HeadingEventSubscription {
        let id = consumers.withLock { consumers in
            consumers.nextID += 1
            consumers.all.append(Consumer(id: consumers.nextID, latestOnly: latestOnly, block: block))
            return consumers.nextID
        }
        return FanOutSubscription { [weak self] in self?.consumers.withLock { $0.all.removeAll { $0.id == id } } }
    }

    /// The number of consumers subscribed.
    var consumerCount: Int { consumers.withLock { $0.all.count } }

    /// Feeds the consumers from `processor` until the returned value is cancelled (the pipeline's end).
    /// - Parameter processor: The pipeline's processor.
    /// - Returns: The stage, or `nil` when the processor is gone.
    func attach(_ processor: HeadingProcessor) -> AnyCancellable? {
        processor.addStage({ [weak self] event in self?.deliver(event) }, batch: { [weak self] events in self?.deliver(contentsOf: events) })
    }

    /// Hands one event to every consumer.
    func deliver(_ event: HeadingEvent) {
        let all = consumers.withLock { $0.all }
        for consumer in all { consumer.block(event) }
    }

    /// Hands a batch to every consumer: all of it, or its events but the headings and then its newest heading.
    func deliver(contentsOf events: [HeadingEvent]) {
        let all = consumers.withLock { $0.all }
        for consumer in all {
            guard consumer.latestOnly else {
                for event in events { consumer.block(event) }
                continue
            }
            var lastHeading: Int?
            for index in events.indices {
                if case .heading = events[index] { lastHeading = index } else { consumer.block(events[index]) }
            }
            if let lastHeading { consumer.block(events[lastHeading]) }
        }
    }
}

/// A subscription to the fan-out: removes its consumer once, when cancelled or released.
private final class FanOutSubscription: HeadingEventSubscription {
    private let remove: Mutex<(@Sendable () -> Void)?>

    init(remove: @escaping @Sendable () -> Void) { self.remove = Mutex(remove) }

    deinit { cancel() }

    func cancel() {
        let remove = remove.withLock { remove in defer { remove = nil }; return remove }
        remove?()
    }
}
