// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

#if canImport(Combine)
public import Combine
#else
@preconcurrency public import OpenCombine
#endif

extension NotificationCenter {
    /// The model-layer center for headings: a dedicated instance, not `.default`.
    ///
    /// ``HeadingNotificationBridge`` posts every event of a ``HeadingProxy`` here as
    /// `Notification.Name.headingDidUpdate`,
    /// `Notification.Name.headingDidFail` or
    /// `Notification.Name.headingAuthorizationDidChange`, with the proxy as the
    /// notification's object. Observe with `addObserver` and the typed accessors on `Notification`,
    /// with ``addHeadingEventObserver(from:using:)``, with ``headingPublisher(from:)`` and
    /// ``faultPublisher(from:)``, or with the async sequences ``headingEvents(from:bufferingPolicy:)``,
    /// ``headings(from:bufferingPolicy:)`` and ``faults(from:bufferingPolicy:)``. Observers run where
    /// the poster delivers (its ``HeadingDelivery``).
    ///
    /// **Batches.** A flat-out replay reports its headings several at a time, and they are posted
    /// as one `Notification.Name.headingBatchDidArrive` notification per batch, the events in
    /// order in `Notification.headingEvents`: posting each one would cost more than
    /// everything else a heading goes through. The typed observers, publishers and sequences above
    /// take batches apart and deliver one event at a time, in order; an observer of a single name
    /// (`headingDidUpdate`) sees live headings only. Live sources (gpsd, the simulation, a replay at
    /// its recorded speed) never batch: one notification per event; an NMEA 0183 stream batches
    /// only the sentences that arrived in one read.
    public static let heading = NotificationCenter()

    /// Calls `block` with every heading event posted to this center, in the order posted.
    ///
    /// One observer sees every heading notification name, so a fault and the headings around it
    /// never change places. The block runs synchronously where the event is posted: the poster's
    /// ``HeadingDelivery``.
    /// - Parameters:
    ///   - object: Only events posted by this object (a ``HeadingProxy``); `nil` for all.
    ///   - block: Called with each event.
    /// - Returns: The observation: it lasts until cancelled or released (or passed to
    ///   `removeObserver(_:)`), and it is `Sendable`.
    public func addHeadingEventObserver(
        from object: AnyObject? = nil,
        using block: @escaping @Sendable (HeadingEvent) -> Void
    ) -> HeadingObservation {
        let token = addObserver(forName: nil, object: object, queue: nil) { notification in
            notification.forEachHeadingEvent(block)
        }
        return HeadingObservation(center: self, token: token)
    }

    /// Calls `block` with every event posted to this center but, of each batch, only its newest
    /// heading (after the batch's other events): for an observer that keeps the latest heading
    /// and counts or records the rest (headingd's metrics, status board, history, MQTT output),
    /// which then copies one heading a batch instead of one per heading.
    /// - Parameter block: Called with each event kept.
    /// - Returns: The observation, as ``addHeadingEventObserver(from:using:)`` returns it.
    package func addLatestHeadingEventObserver(using block: @escaping @Sendable (HeadingEvent) -> Void) -> HeadingObservation {
        let token = addObserver(forName: nil, object: nil, queue: nil) { notification in
            if let last = notification.forEachNonHeadingEvent(block) { block(.heading(last)) }
        }
        return HeadingObservation(center: self, token: token)
    }

    /// Every heading event posted to this center from now on, as an async sequence.
    ///
    /// The sequence never finishes by itself; stop iterating (or cancel the task) to end it,
    /// which removes its observer.
    /// - Parameters:
    ///   - object: Only events posted by this object; `nil` for all.
    ///   - bufferingPolicy: What to keep while the consumer is busy. Default: the newest
    ///     ``HeadingProxy/defaultBufferSize`` events, dropping older ones; `.unbounded` keeps all.
    /// - Returns: The events, in the order posted.
    public func headingEvents(
        from object: AnyObject? = nil,
        bufferingPolicy: AsyncStream<HeadingEvent>.Continuation.BufferingPolicy =
            .bufferingNewest(HeadingProxy.defaultBufferSize)
    ) -> AsyncStream<HeadingEvent> {
        observedStream(from: object, bufferingPolicy: bufferingPolicy) { $0 }
    }

    /// Every heading posted to this center from now on, typed, as an async sequence.
    /// - Parameters:
    ///   - object: Only headings posted by this object; `nil` for all.
    ///   - bufferingPolicy: What to keep while the consumer is busy. Default: the newest
    ///     ``HeadingProxy/defaultBufferSize`` headings, dropping older ones; `.unbounded` keeps all.
    /// - Returns: The headings, in the order posted.
    public func headings(
        from object: AnyObject? = nil,
        bufferingPolicy: AsyncStream<Heading>.Continuation.BufferingPolicy =
            .bufferingNewest(HeadingProxy.defaultBufferSize)
    ) -> AsyncStream<Heading> {
        observedStream(from: object, bufferingPolicy: bufferingPolicy) { $0.heading }
    }

    /// Every fault posted to this center from now on, typed, as an async sequence.
    /// - Parameters:
    ///   - object: Only faults posted by this object; `nil` for all.
    ///   - bufferingPolicy: What to keep while the consumer is busy. Default: the newest
    ///     ``HeadingProxy/defaultBufferSize`` faults, dropping older ones; `.unbounded` keeps all.
    /// - Returns: The faults, in the order posted.
    public func faults(
        from object: AnyObject? = nil,
        bufferingPolicy: AsyncStream<HeadingFault>.Continuation.BufferingPolicy =
            .bufferingNewest(HeadingProxy.defaultBufferSize)
    ) -> AsyncStream<HeadingFault> {
        observedStream(from: object, bufferingPolicy: bufferingPolicy) { $0.fault }
    }

    /// Every heading posted to this center, as a publisher (Combine, or OpenCombine on Linux).
    /// - Parameter object: Only headings posted by this object; `nil` for all.
    /// - Returns: A publisher that never fails or finishes.
    public func headingPublisher(from object: AnyObject? = nil) -> AnyPublisher<Heading, Never> {
        eventPublisher(from: object).compactMap(\.heading).eraseToAnyPublisher()
    }

    /// Every fault posted to this center, as a publisher (Combine, or OpenCombine on Linux).
    /// - Parameter object: Only faults posted by this object; `nil` for all.
    /// - Returns: A publisher that never fails or finishes.
    public func faultPublisher(from object: AnyObject? = nil) -> AnyPublisher<HeadingFault, Never> {
        eventPublisher(from: object).compactMap(\.fault).eraseToAnyPublisher()
    }

    /// Every heading event posted to this center, batches taken apart, as a publisher: its
    /// observer is added when a subscriber arrives and removed when it cancels.
    private func eventPublisher(from object: AnyObject?) -> AnyPublisher<HeadingEvent, Never> {
        let center = self
        let poster = WeakPoster(object)
        return Deferred {
            let subject = PassthroughSubject<HeadingEvent, Never>()
            let observation = center.addHeadingEventObserver(from: poster.object) { subject.send($0) }
            return subject.handleEvents(receiveCancel: { observation.cancel() })
        }
        .eraseToAnyPublisher()
    }

    private func observedStream<Element: Sendable>(
        from object: AnyObject?,
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy,
        transform: @escaping @Sendable (HeadingEvent) -> Element?
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let observation = addHeadingEventObserver(from: object) { event in
            if let element = transform(event) { continuation.yield(element) }
        }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }
}

