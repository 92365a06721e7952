// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// HeadingKit's own consumers of a proxy's or a processor's events (the processor, the
/// notification bridge), called straight from its delivery rather than through its publisher: no
/// subject, conduit or demand bookkeeping per event; a batch (a flat-out replay's headings) reaches
/// each stage in one call.
///
/// Safety: `@unchecked Sendable` because `entries` and `nextID` are read and written only while
/// holding `lock`, the owner's own lock, under which the owner also calls ``send(_:)``; so a stage
/// sees events in the owner's order, and once its cancellable has returned it is called no more.
final class HeadingStages: @unchecked Sendable {
    /// One stage: what it does with one event, and with several at once.
    private struct Entry {
        let id: Int
        let receive: @Sendable (HeadingEvent) -> Void
        let receiveBatch: @Sendable ([HeadingEvent]) -> Void
    }

    private let lock: NSRecursiveLock
    private var entries: [Entry] = []
    private var nextID = 0

    /// Creates an empty list guarded by its owner's lock.
    /// - Parameter lock: The owner's lock, held while it delivers.
    init(lock: NSRecursiveLock) { self.lock = lock }

    /// Calls `receive` with every event ``send(_:)`` is given, and `receiveBatch` with every
    /// batch ``send(contentsOf:)`` is given, until the returned value is cancelled.
    /// - Parameters:
    ///   - receive: Called with each event, in order.
    ///   - receiveBatch: Called with each batch of events, oldest first; by default, `receive`
    ///     with each event of the batch in turn.
    /// - Returns: A cancellable that stops the calls.
    func add(
        _ receive: @escaping @Sendable (HeadingEvent) -> Void,
        batch receiveBatch: (@Sendable ([HeadingEvent]) -> Void)? = nil
    ) -> AnyCancellable {
        let receiveBatch = receiveBatch ?? { events in for event in events { receive(event) } }
        let id = lock.withLock {
            defer { nextID += 1 }
            entries.append(Entry(id: nextID, receive: receive, receiveBatch: receiveBatch))
            return nextID
        }
        return AnyCancellable { [weak self] in
            guard let self else { return }
            self.lock.withLock { self.entries.removeAll { $0.id == id } }
        }
    }

    /// Calls every stage with `event`. Called with the owner's lock held.
    func send(_ event: HeadingEvent) {
        for entry in entries { entry.receive(event) }
    }

    /// Calls every stage with `events`, a batch in order. Called with the owner's lock held.
    func send(contentsOf events: [HeadingEvent]) {
        guard !events.isEmpty else { return }
        if events.count == 1 { return send(events[0]) }
        for entry in entries { entry.receiveBatch(events) }
    }
}
