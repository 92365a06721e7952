// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import Logging

#if canImport(Combine)
public import Combine
#else
@preconcurrency public import OpenCombine
#endif

/// A CoreLocation-style heading manager: the delegate of one ``HeadingSource``, republishing its
/// reports to any number of subscribers.
///
/// Call ``enable()`` to start headings and ``disable()`` to pause them, like
/// `startUpdatingHeading()` and `stopUpdatingHeading()`. Subscribe with ``publisher`` (Combine, or
/// OpenCombine on Linux; backed by a `PassthroughSubject`), ``headingPublisher``,
/// ``faultPublisher``, or the async sequences ``events(bufferingPolicy:)``,
/// ``headings(bufferingPolicy:)`` and ``faults(bufferingPolicy:)``.
///
/// **Subscribe once, toggle freely.** ``disable()`` stops the source and pauses delivery; it
/// finishes nothing. Subscribers and sequences stay, and receive the headings of the next
/// ``enable()``. A report still in flight when ``disable()`` returns is dropped (an event whose
/// delivery had already begun on another thread still reaches the subscribers after it). Only
/// the proxy going away finishes them. A fault is an event, not the end of a stream.
///
/// **Delivery.** Subscribers are called where ``delivery`` says (``HeadingDelivery``): by default
/// on the main queue when the proxy was created on the main thread (Core Location's rule), so
/// a `sink` in `@MainActor` code is safe; else on the source's thread. Every subscriber sees every
/// event in the order the source reported it, and no lock of the proxy's is held while it runs:
/// a subscriber may call into the proxy, from its own thread or another.
///
/// **Authorization.** ``authorizationStatus`` is `notDetermined` until the source's first answer
/// (for gpsd, its first connection attempt). A refusal is reported by one
/// ``HeadingFault/Code/permissionDenied`` fault carrying its reason, whether
/// ``requestAuthorization()`` was called before ``enable()`` or not.
///
/// Safety: `@unchecked Sendable` because every stored `var` is read and written only while holding
/// `lock`, an `NSLock` that is never held while a subscriber runs: events are queued in order under
/// it and handed out after it is released (`HeadingBroadcast`), so a sink may call back into the
/// proxy (for example `disable()`) from any thread.
public final class HeadingProxy: HeadingSourceDelegate, @unchecked Sendable {
    /// The default buffering of the async sequences: the newest 1024 events (over 100 s at
    /// 10 Hz) wait for a slow consumer; older ones are dropped.
    public static let defaultBufferSize = 1024

    /// The source this proxy is the delegate of.
    public let source: any HeadingSource
    /// Where subscribers are called.
    public let delivery: HeadingDelivery
    private let logger: Logger
    private let lock = NSLock()
    private var machine: StateMachine
    /// The subscribers — publisher, async sequences, HeadingKit's stages — and the events on their way to them.
    private let broadcast = HeadingBroadcast()
    /// The headings of one batch that pass the filter, reused from batch to batch.
    private var batch: [HeadingEvent] = []

    /// Creates a proxy and makes itself the source's delegate. Nothing starts until ``enable()``.
    /// - Parameters:
    ///   - source: The source to manage.
    ///   - delivery: Where subscribers are called. Default ``HeadingDelivery/automatic``: the main
    ///     queue when created on the main thread, else the source's thread.
    ///   - restrictionReason: Why configuration forbids this source, or `nil` when it is allowed.
    ///     A restricted proxy reports ``HeadingAuthorizationStatus/restricted`` and never starts its source.
    ///   - logger: Where the proxy logs its lifecycle, at debug level.
    public init(
        source: any HeadingSource, delivery: HeadingDelivery = .automatic, restrictionReason: String? = nil,
        logger: Logger = Logger(label: "HeadingKit")
    ) {
        self.source = source
        self.delivery = delivery
        self.logger = logger
        self.machine = StateMachine(sourceName: source.name, restrictionReason: restrictionReason, keepsTryingAfterDenial: source.keepsTryingAfterDenial)
        source.delegate = self
    }

    deinit {
        if machine.isSourceRunning { source.stop() }
        broadcast.finish()
    }

    // MARK: State

    /// Whether ``enable()`` was called more recently than ``disable()``.
    public var isEnabled: Bool { lock.withLock { machine.isEnabled } }

    /// The source's authorization, as last reported; every change is also published as an event.
    public var authorizationStatus: HeadingAuthorizationStatus { lock.withLock { machine.authorizationStatus } }

    /// The minimum change in degrees, measured on the circle, before a new heading is delivered.
    ///
    /// Like `CLLocationManager.headingFilter`: with a filter of 1°, after 359.5° the heading 0.3°
    /// (0.8° away) is held back and 0.6° (1.1° away) is delivered. The default, 0
    /// (``headingFilterNone``), delivers every heading. Negative values count as 0.
    public var headingFilter: Double {
        get { lock.withLock { machine.filter.minimumChange } }
        set { lock.withLock { machine.filter.minimumChange = newValue } }
    }

    /// The filter value that delivers every heading.
    public static let headingFilterNone = 0.0

    // MARK: Lifecycle

    /// Starts headings: asks for authorization if nobody has, then starts the source once
    /// authorized, or at once when the source can only tell by trying (gpsd).
    ///
    /// Calling it while enabled does nothing. When authorization was refused, one
    /// ``HeadingFault/Code/permissionDenied`` fault says why and the source is not started.
    public func enable() {
        let action = lock.withLock { machine.enable() }
        logger.debug("heading proxy enabled", metadata: ["source": "\(source.name)"])
        switch action {
        case .none:
            break
        case .requestAuthorization:
            requestAuthorization()
            if lock.withLock({ machine.authorizationRequestReturned() }) { source.start() }
        case .startSource:
            source.start()
        case .reportRefusal(let fault):
            broadcast.sending(under: lock) { publish(.fault(fault)) }
        }
    }

    /// Stops the source and pauses delivery. Subscribers and sequences stay for the next
    /// ``enable()``; a report in flight is dropped. Calling it while disabled does nothing.
    public func disable() {
        let stopSource: Bool? = lock.withLock {
            defer { noteGenerations() }
            return machine.disable()
        }
        guard let stopSource else { return }
        // The source is stopped outside the lock: a source thread delivering an event needs the lock.
        if stopSource { source.stop() }
        logger.debug("heading proxy disabled", metadata: ["source": "\(source.name)"])
    }

    /// Asks whether the source may deliver headings; the answer is published as an
    /// ``HeadingEvent/authorizationChanged(_:)`` event and read from ``authorizationStatus``.
    ///
    /// A source forbidden by configuration becomes ``HeadingAuthorizationStatus/restricted`` without
    /// being asked. Calling it once the status is known does nothing.
    public func requestAuthorization() {
        switch lock.withLock({ machine.requestAuthorization() }) {
        case .none:
            break
        case .askSource:
            source.requestAuthorization()
        case .restrict:
            applyAuthorization(.restricted)
        }
    }

    // MARK: Subscribing

    /// Every event — headings, faults, authorization changes — as a publisher backed by a `PassthroughSubject`.
    ///
    /// It never fails, and finishes only when the proxy goes away: ``disable()`` pauses it.
    /// Sinks are called as ``delivery`` says.
    public var publisher: AnyPublisher<HeadingEvent, Never> { broadcast.publisher }

    /// The headings of ``publisher`` alone.
    public var headingPublisher: AnyPublisher<Heading, Never> {
        publisher.compactMap(\.heading).eraseToAnyPublisher()
    }

    /// The faults of ``publisher`` alone.
    public var faultPublisher: AnyPublisher<HeadingFault, Never> {
        publisher.compactMap(\.fault).eraseToAnyPublisher()
    }

    /// Every event as an async sequence, buffered for a slow consumer as `bufferingPolicy` says.
    ///
    /// The sequence finishes only when the proxy goes away (``disable()`` pauses it) or when
    /// the consumer stops iterating.
    /// - Parameter bufferingPolicy: What to keep while the consumer is busy. Default: the newest
    ///   ``defaultBufferSize`` events, dropping older ones; `.unbounded` keeps everything.
    /// - Returns: A sequence of the events reported from now on.
    public func events(
        bufferingPolicy: AsyncStream<HeadingEvent>.Continuation.BufferingPolicy = .bufferingNewest(defaultBufferSize)
    ) -> AsyncStream<HeadingEvent> {
        broadcast.stream(bufferingPolicy: bufferingPolicy) { $0 }
    }

    /// The headings alone as an async sequence, buffered for a slow consumer as `bufferingPolicy` says.
    ///
    /// The sequence finishes only when the proxy goes away (``disable()`` pauses it) or when
    /// the consumer stops iterating.
    /// - Parameter bufferingPolicy: What to keep while the consumer is busy. Default: the newest
    ///   ``defaultBufferSize`` headings, dropping older ones; `.unbounded` keeps everything.
    /// - Returns: A sequence of the headings delivered from now on.
    public func headings(
        bufferingPolicy: AsyncStream<Heading>.Continuation.BufferingPolicy = .bufferingNewest(defaultBufferSize)
    ) -> AsyncStream<Heading> {
        broadcast.stream(bufferingPolicy: bufferingPolicy) { $0.heading }
    }

    /// The faults alone as an async sequence, buffered for a slow consumer as `bufferingPolicy` says.
    ///
    /// The sequence finishes only when the proxy goes away (``disable()`` pauses it) or when
    /// the consumer stops iterating.
    /// - Parameter bufferingPolicy: What to keep while the consumer is busy. Default: the newest
    ///   ``defaultBufferSize`` faults, dropping older ones; `.unbounded` keeps everything.
    /// - Returns: A sequence of the faults delivered from now on.
    public func faults(
        bufferingPolicy: AsyncStream<HeadingFault>.Continuation.BufferingPolicy = .bufferingNewest(defaultBufferSize)
    ) -> AsyncStream<HeadingFault> {
        broadcast.stream(bufferingPolicy: bufferingPolicy) { $0.fault }
    }

    /// Calls `receive` with every event the publisher sends, in the same turn, until the returned
    /// value is cancelled: HeadingKit's stages use it instead of a subscription to ``publisher``.
    /// - Parameters:
    ///   - receive: Called with each event, in order.
    ///   - receiveBatch: Called with each batch (a flat-out replay's headings), oldest first;
    ///     by default `receive` with each in turn.
    /// - Returns: A cancellable that stops the calls.
    package func addStage(
        _ receive: @escaping @Sendable (HeadingEvent) -> Void,
        batch receiveBatch: (@Sendable ([HeadingEvent]) -> Void)? = nil
    ) -> AnyCancellable {
        broadcast.add(receive, batch: receiveBatch)
    }

    // MARK: HeadingSourceDelegate

    /// Delivers the heading to every subscriber if the proxy is enabled and the heading passes ``headingFilter``.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - heading: The heading.
    public func headingSource(_ source: any HeadingSource, didUpdate heading: Heading) {
        broadcast.sending(under: lock) {
            guard machine.shouldDeliver(heading) else { return false }
            return publish(.heading(heading))
        }
    }

    /// Delivers the headings that pass ``headingFilter`` to every subscriber, oldest first, if the
    /// proxy is enabled: one at a time to its publisher and async sequences, as one batch to
    /// HeadingKit's stages (and so to the notification center as one notification).
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - headings: The headings, oldest first.
    public func headingSource(_ source: any HeadingSource, didUpdateHeadings headings: [Heading]) {
        broadcast.sending(under: lock) {
            // The reused array is taken out and put back, and the state machine admits the
            // batch in one call: one run-time exclusivity check each, not one per heading.
            var admitted: [HeadingEvent] = []
            swap(&admitted, &batch)
            defer { swap(&admitted, &batch) }
            admitted.removeAll(keepingCapacity: true)
            machine.admit(headings, into: &admitted)
            guard !admitted.isEmpty else { return false }
            let ticket = HeadingBroadcast.Ticket.headings(machine.headingGeneration)
            if delivery.isImmediate { return broadcast.enqueue(contentsOf: admitted, ticket: ticket) }
            let events = admitted
            delivery.perform { [broadcast] in broadcast.send(contentsOf: events, ticket: ticket) }
            return false
        }
    }

    /// Delivers the fault to every subscriber if the proxy is enabled. The stream goes on. A
    /// `permissionDenied` fault is also kept as the reason a later ``enable()`` reports.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - fault: What went wrong.
    public func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault) {
        broadcast.sending(under: lock) {
            guard machine.shouldDeliver(fault) else { return false }
            return publish(.fault(fault))
        }
    }

    /// Delivers the notice to every subscriber if the proxy is enabled, as a fault would be.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - notice: What ended.
    public func headingSource(_ source: any HeadingSource, didRecover notice: HeadingNotice) {
        broadcast.sending(under: lock) {
            guard machine.isEnabled else { return false }
            return publish(.notice(notice))
        }
    }

    /// Records and publishes the new status, and starts the source if it was waiting for authorization.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - status: The new status.
    public func headingSource(_ source: any HeadingSource, didChangeAuthorization status: HeadingAuthorizationStatus) {
        applyAuthorization(status)
    }

    // MARK: Delivery

    private func applyAuthorization(_ status: HeadingAuthorizationStatus) {
        let (start, stop): (Bool, Bool) = broadcast.sending(under: lock) {
            defer { noteGenerations() }
            guard case .publish(let status, let refusal, let start, let stop) = machine.authorizationChanged(to: status) else {
                return ((false, false), false)
            }
            var deliver = publish(.authorizationChanged(status))
            if let refusal { deliver = publish(.fault(refusal)) || deliver }
            return ((start, stop), deliver)
        }
        // Outside the lock, as for disable(): a source thread delivering an event needs the lock.
        if stop { source.stop() }
        if start { source.start() }
    }

    /// Tells the broadcast the state machine's generations, so that what was queued before a
    /// ``disable()`` or a refusal is dropped at its turn. Called with `lock` held.
    private func noteGenerations() {
        broadcast.setGenerations(headings: machine.headingGeneration, faults: machine.generation)
    }

    /// Queues one event for every subscriber, as ``delivery`` says. Called with `lock` held, so
    /// events never overtake each other (in `broadcast.sending(under:_:)`'s body, which delivers
    /// when this returns `true`). A heading or fault queued before a ``disable()`` is dropped
    /// when its turn comes, and a heading queued before a refusal (`denied`, `restricted`); the
    /// faults queued before a refusal are delivered, before it, since they say why. An
    /// authorization change is state, and always delivered.
    /// - Returns: Whether the caller is to deliver.
    private func publish(_ event: HeadingEvent) -> Bool {
        let ticket: HeadingBroadcast.Ticket? = switch event {
        case .heading: .headings(machine.headingGeneration)
        case .authorizationChanged: nil
        case .fault, .notice: .faults(machine.generation)
        }
        if delivery.isImmediate { return broadcast.enqueue(event, ticket: ticket) }
        delivery.perform { [broadcast] in broadcast.send(event, ticket: ticket) }
        return false
    }
}
