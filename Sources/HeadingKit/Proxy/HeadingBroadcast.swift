// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import HeadingPorts
import Synchronization

#if canImport(Combine)
package import Combine
#else
@preconcurrency package import OpenCombine
#endif

/// How a ``HeadingProxy`` or a ``HeadingProcessor`` hands its events to subscribers: its publisher,
/// its async sequences and HeadingKit's own stages (the processor, the notification bridge,
/// headingd's fan-out), in one order, with no lock held while a subscriber runs.
///
/// The owner decides what to send under its own lock and puts it in the broadcast's queue there
/// (``sending(under:_:)``, whose body calls ``enqueue(_:ticket:)``), so the queue's order is the
/// order of the owner's decisions; the events are delivered once its lock is released. One thread at a time delivers: the first to find
/// nobody delivering takes the queue's events one by one, each to a copy of the subscriber list
/// taken as its turn comes, until the queue is empty. An event sent meanwhile from another thread
/// is queued behind, and one sent from inside a subscriber is delivered after the current event
/// has reached every subscriber: every subscriber sees every event in the same order, and a
/// subscriber may call back into its owner (`disable()`, a getter, a new sequence) from any thread.
///
/// What a lock held during delivery guaranteed and this does not: an event whose delivery has
/// begun on one thread still reaches the subscribers after it when another thread cancels a
/// subscription or disables the owner meanwhile; everything after that event honours them.
///
/// The queue is bounded: a thread with an event to send waits (before it takes its owner's lock)
/// while ``queueLimit`` events wait for another thread's delivery. The thread
/// that delivers, and a subscriber sending from inside a delivery, never wait.
///
/// Safety: `@unchecked Sendable` because `subscribers`, `nextID`, `queue`, `head`, `deliverer`,
/// `waiters` and `isFinished` are read and written only while holding `condition`, an `NSCondition`
/// under which nothing outside this type is ever called.
package final class HeadingBroadcast: @unchecked Sendable {
    /// The most events that may wait for another thread's delivery before a sender waits.
    package static let queueLimit = 1024

    /// What an event's delivery depends on: the owner's generation when it was sent. An event
    /// sent with a ticket is dropped, at its turn, when that generation has ended.
    package struct Ticket: Sendable, Equatable {
        enum Gate: Equatable { case headings, faults }
        let gate: Gate
        let generation: Int

        /// Delivered only while the owner's heading generation is the one given.
        package static func headings(_ generation: Int) -> Ticket { Ticket(gate: .headings, generation: generation) }
        /// Delivered only while the owner's fault generation is the one given.
        package static func faults(_ generation: Int) -> Ticket { Ticket(gate: .faults, generation: generation) }
    }

    /// One subscriber: what it does with one event, with several at once, and at the end.
    private struct Subscriber {
        let id: Int
        let receive: @Sendable (HeadingEvent) -> Void
        let receiveBatch: @Sendable ([HeadingEvent]) -> Void
        let finish: (@Sendable () -> Void)?
    }

    /// One queued send.
    private enum Item {
        case none
        case one(HeadingEvent, Ticket?)
        case batch([HeadingEvent], Ticket?)
    }

    private let condition = NSCondition()
    private var subscribers: [Subscriber] = []
    private var nextID = 0
    /// The sends waiting for their turn, from `head` on; its storage is kept from drain to drain.
    private var queue: [Item] = []
    private var head = 0
    /// The thread delivering now, if any.
    private var deliverer: ThreadIdentity?
    /// Threads waiting in ``waitForRoom()``.
    private var waiters = 0
    private var isFinished = false
    /// The number of sends waiting, read without the lock by ``waitForRoom()``'s first look.
    private let queued = Atomic(0)
    private let headingGeneration = Atomic(0)
    private let faultGeneration = Atomic(0)
    private let subject = PassthroughSubject<HeadingEvent, Never>()
    /// Whether anyone has asked for ``publisher``: until then no subscriber can exist, and the
    /// subject is not sent to (a live heading then costs no subject lock and no walk of its list).
    private let publisherRequested = Atomic(false)

    /// Creates a broadcast with no subscribers.
    package init() {}

    // MARK: Subscribing

    /// Every event sent from now on, as a publisher backed by a `PassthroughSubject`; it finishes
    /// at ``finish()``.
    package var publisher: AnyPublisher<HeadingEvent, Never> {
        publisherRequested.store(true, ordering: .releasing)
        return subject.eraseToAnyPublisher()
    }

    /// Calls `receive` with every event sent, and `receiveBatch` with every batch, until the
    /// returned value is cancelled.
    /// - Parameters:
    ///   - receive: Called with each event, in order.
    ///   - receiveBatch: Called with each batch, oldest first; by default `receive` with each in turn.
    /// - Returns: A cancellable that stops the calls (a delivery under way on another thread may
    ///   still make its call).
    package func add(
        _ receive: @escaping @Sendable (HeadingEvent) -> Void,
        batch receiveBatch: (@Sendable ([HeadingEvent]) -> Void)? = nil
    ) -> AnyCancellable {
        let receiveBatch = receiveBatch ?? { events in for event in events { receive(event) } }
        let id = add(Subscriber(id: 0, receive: receive, receiveBatch: receiveBatch, finish: nil))
        return AnyCancellable { [weak self] in self?.remove(id) }
    }

    /// The events sent from now on that `transform` keeps, as an async sequence buffered as
    /// `bufferingPolicy` says; it finishes at ``finish()`` or when its consumer stops iterating.
    /// - Parameters:
    ///   - bufferingPolicy: What to keep while the consumer is busy.
    ///   - transform: The element an event gives, or `nil` to skip it.
    /// - Returns: The sequence.
    package func stream<Element: Sendable>(
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy,
        transform: @escaping @Sendable (HeadingEvent) -> Element?
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let receive: @Sendable (HeadingEvent) -> Void = { event in
            if let element = transform(event) { continuation.yield(element) }
        }
        let id = add(
            Subscriber(
                id: 0, receive: receive, receiveBatch: { events in for event in events { receive(event) } },
                finish: { continuation.finish() }
            ))
        // The lock is a leaf, so taking it here is safe even inside the runtime's own lock on a
        // cancelled task (where a termination handler may run).
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        if condition.withLock({ isFinished }) { continuation.finish() }
        return stream
    }

    private func add(_ subscriber: Subscriber) -> Int {
        condition.withLock {
            defer { nextID += 1 }
            subscribers.append(
                Subscriber(id: nextID, receive: subscriber.receive, receiveBatch: subscriber.receiveBatch, finish: subscriber.finish))
            return nextID
        }
    }

    private func remove(_ id: Int) {
        condition.withLock { subscribers.removeAll { $0.id == id } }
    }

    /// The number of subscribers but the publisher's.
    package var subscriberCount: Int { condition.withLock { subscribers.count } }

    /// The number of sends waiting for their turn.
    package var queuedCount: Int { condition.withLock { queue.count - head } }

    /// Finishes the publisher and the async sequences; events sent after it reach nobody. For
    /// the owner's `deinit`.
    package func finish() {
        let finishing: [Subscriber] = condition.withLock {
            isFinished = true
            defer { subscribers = [] }
            return subscribers
        }
        subject.send(completion: .finished)
        for subscriber in finishing { subscriber.finish?() }
    }

    // MARK: Generations

    /// Records the owner's generations: queued events whose ticket names an earlier one are
    /// dropped at their turn, and a batch being delivered stops at the next event. Call it under
    /// the owner's lock whenever they may have changed.
    /// - Parameters:
    ///   - headings: The generation of heading tickets.
    ///   - faults: The generation of fault tickets.
    package func setGenerations(headings: Int, faults: Int) {
        headingGeneration.store(headings, ordering: .releasing)
        faultGeneration.store(faults, ordering: .releasing)
    }

    private func admits(_ ticket: Ticket?) -> Bool {
        guard let ticket else { return true }
        return switch ticket.gate {
        case .headings: headingGeneration.load(ordering: .acquiring) == ticket.generation
        case .faults: faultGeneration.load(ordering: .acquiring) == ticket.generation
        }
    }

    // MARK: Sending

    /// The one way an owner sends: waits for room in the queue (before its lock), runs `decide`
    /// under `lock` — where the owner decides and queues with ``enqueue(_:ticket:)`` — and, once
    /// the lock is released, delivers when this thread is the one to.
    /// - Parameters:
    ///   - lock: The owner's lock.
    ///   - decide: What happens under it: a result, and whether an `enqueue` returned `true`.
    /// - Returns: `decide`'s result.
    package func sending<Result>(under lock: NSLock, _ decide: () -> (result: Result, deliver: Bool)) -> Result {
        waitForRoom()
        let (result, deliver) = lock.withLock(decide)
        if deliver { drain() }
        return result
    }

    /// ``sending(under:_:)`` for a decision with no result but whether to deliver.
    /// - Parameters:
    ///   - lock: The owner's lock.
    ///   - decide: What happens under it; returns whether an `enqueue` returned `true`.
    package func sending(under lock: NSLock, _ decide: () -> Bool) {
        sending(under: lock) { ((), decide()) }
    }

    /// Waits while ``queueLimit`` events wait for another thread's delivery; at once on the
    /// delivering thread.
    private func waitForRoom() {
        guard queued.load(ordering: .relaxed) >= Self.queueLimit else { return }
        condition.withLock {
            while let deliverer, deliverer != .current, queue.count - head >= Self.queueLimit {
                waiters += 1
                condition.wait()
                waiters -= 1
            }
        }
    }

    /// Queues one event. Call it in ``sending(under:_:)``'s body, which delivers when this
    /// returns `true`.
    /// - Parameters:
    ///   - event: The event.
    ///   - ticket: The generation it belongs to, or `nil` to deliver it whatever happens.
    /// - Returns: Whether the caller is to deliver (nobody else was).
    package func enqueue(_ event: HeadingEvent, ticket: Ticket? = nil) -> Bool {
        enqueue(.one(event, ticket))
    }

    /// Queues a batch, delivered one event at a time to the publisher and as one to the other
    /// subscribers. Call it in ``sending(under:_:)``'s body.
    /// - Parameters:
    ///   - events: The events, oldest first.
    ///   - ticket: The generation they belong to, or `nil`.
    /// - Returns: Whether the caller is to deliver.
    package func enqueue(contentsOf events: [HeadingEvent], ticket: Ticket? = nil) -> Bool {
        guard !events.isEmpty else { return false }
        return enqueue(events.count == 1 ? .one(events[0], ticket) : .batch(events, ticket))
    }

    private func enqueue(_ item: Item) -> Bool {
        condition.withLock {
            guard !isFinished else { return false }
            queue.append(item)
            queued.store(queue.count - head, ordering: .relaxed)
            guard deliverer == nil else { return false }
            deliverer = .current
            return true
        }
    }

    /// Queues one event and delivers it unless another thread is delivering: for a sender that
    /// holds no lock of its owner's (a delivery queue's turn).
    /// - Parameters:
    ///   - event: The event.
    ///   - ticket: The generation it belongs to, or `nil`.
    package func send(_ event: HeadingEvent, ticket: Ticket? = nil) {
        if enqueue(event, ticket: ticket) { drain() }
    }

    /// Queues a batch and delivers it unless another thread is delivering.
    /// - Parameters:
    ///   - events: The events, oldest first.
    ///   - ticket: The generation they belong to, or `nil`.
    package func send(contentsOf events: [HeadingEvent], ticket: Ticket? = nil) {
        if enqueue(contentsOf: events, ticket: ticket) { drain() }
    }

    /// Delivers the queue's events until it is empty; with no lock held, on the thread whose
    /// `enqueue` returned `true`.
    private func drain() {
        while true {
            let turn: (Item, [Subscriber])? = condition.withLock {
                guard head < queue.count else {
                    queue.removeAll(keepingCapacity: true)
                    head = 0
                    queued.store(0, ordering: .relaxed)
                    deliverer = nil
                    if waiters > 0 { condition.broadcast() }
                    return nil
                }
                var item = Item.none
                swap(&item, &queue[head])  // the slot lets go of a batch as its turn comes
                head += 1
                queued.store(queue.count - head, ordering: .relaxed)
                if waiters > 0 { condition.broadcast() }
                return (item, subscribers)
            }
            guard let (item, subscribers) = turn else { return }
            deliver(item, to: subscribers)
        }
    }

    private func deliver(_ item: Item, to subscribers: [Subscriber]) {
        switch item {
        case .none:
            break
        case .one(let event, let ticket):
            guard admits(ticket) else { return }
            if publisherRequested.load(ordering: .acquiring) { subject.send(event) }
            for subscriber in subscribers { subscriber.receive(event) }
        case .batch(let events, let ticket):
            guard admits(ticket) else { return }
            var delivered = events.count
            if publisherRequested.load(ordering: .acquiring) {
                // A sink that disables the owner mid-batch ends the batch there, for everyone.
                delivered = 0
                for event in events {
                    guard admits(ticket) else { break }
                    subject.send(event)
                    delivered += 1
                }
            }
            guard delivered > 0 else { return }
            if delivered == 1 {
                for subscriber in subscribers { subscriber.receive(events[0]) }
                return
            }
            let batch = delivered == events.count ? events : Array(events.prefix(delivered))
            for subscriber in subscribers { subscriber.receiveBatch(batch) }
        }
    }
}
