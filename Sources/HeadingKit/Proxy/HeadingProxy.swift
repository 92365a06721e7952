// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization
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
/// ``enable()``. A report still in flight when ``disable()`` returns is dropped. Only the proxy
/// going away finishes them. A fault is an event, not the end of a stream.
///
/// **Delivery.** Subscribers are called where ``delivery`` says (``HeadingDelivery``): by default
/// on the main queue when the proxy was created on the main thread (Core Location's rule), so
/// a `sink` in `@MainActor` code is safe; else on the source's thread. Every subscriber sees every
/// event in the order the source reported it.
///
/// **Authorization.** ``authorizationStatus`` is `notDetermined` until the source's first answer
/// (for gpsd, its first connection attempt). A refusal is reported by one
/// ``HeadingFault/Code/permissionDenied`` fault carrying its reason, whether
/// ``requestAuthorization()`` was called before ``enable()`` or not.
///
/// Safety: `@unchecked Sendable` because every stored `var` is read and written only while holding
/// `lock`, an `NSRecursiveLock` that is also held while an event is handed to subscribers, so that
/// they see events in order and may call back into the proxy (for example `disable()`) from a sink.
public final class HeadingProxy: HeadingSourceDelegate, @unchecked Sendable {
    private struct StreamSink {
        let yield: @Sendable (HeadingEvent) -> Void
        let finish: @Sendable () -> Void
    }

    /// The default buffering of the async sequences: the newest 1024 events (over 100 s at
    /// 10 Hz) wait for a slow consumer; older ones are dropped.
    public static let defaultBufferSize = 1024

    /// The source this proxy is the delegate of.
    public let source: any HeadingSource
    /// Where subscribers are called.
    public let delivery: HeadingDelivery
    private let logger: Logger
    private let lock = NSRecursiveLock()
    private var machine: StateMachine
    private let subject = PassthroughSubject<HeadingEvent, Never>()
    /// Whether anyone has asked for ``publisher``: until then no subscriber can exist, and the
    /// subject is not sent to (a live heading then costs no subject lock and no walk of its list).
    private let publisherRequested = Atomic(false)
    private var streams: [Int: StreamSink] = [:]
    private var nextStreamID = 0
    /// Streams whose consumers went away: taken out of `streams` at the next event or stream.
    private let endedStreams = EndedStreams()
    /// HeadingKit's own stages (the processor), called straight from ``send(_:)``.
    private let stages: HeadingStages
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
        self.stages = HeadingStages(lock: lock)
        source.delegate = self
    }

    deinit {
        if machine.isSourceRunning { source.stop() }
        subject.send(completion: .finished)
        for sink in streams.values { sink.finish() }
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
            lock.withLock { publish(.fault(fault)) }
        }
    }

    /// Stops the source and pauses delivery. Subscribers and sequences stay for the next
    /// ``enable()``; a report in flight is dropped. Calling it while disabled does nothing.
    public func disable() {
        guard let stopSource = lock.withLock({ machine.disable() }) else { return }
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
    public var publisher: AnyPublisher<HeadingEvent, Never> {
        publisherRequested.store(true, ordering: .releasing)
        return subject.eraseToAnyPublisher()
    }

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
        stream(bufferingPolicy: bufferingPolicy) { $0 }
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
        stream(bufferingPolicy: bufferingPolicy) { $0.heading }
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
        stream(bufferingPolicy: bufferingPolicy) { $0.fault }
    }

    private func stream<Element: Sendable>(
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy,
        transform: @escaping @Sendable (HeadingEvent) -> Element?
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let sink = StreamSink(
            yield: { event in if let element = transform(event) { continuation.yield(element) } },
            finish: { continuation.finish() }
        )
        addStream(sink, continuation)
        return stream
    }

    private func addStream<Element>(_ sink: StreamSink, _ continuation: AsyncStream<Element>.Continuation) {
        let id = lock.withLock {
            removeEndedStreams()
            defer { nextStreamID += 1 }
            streams[nextStreamID] = sink
            return nextStreamID
        }
        // Not `lock`: see ``EndedStreams``.
        continuation.onTermination = { [endedStreams] _ in endedStreams.record(id) }
    }

    /// Forgets the streams whose consumers went away. Called with `lock` held.
    private func removeEndedStreams() {
        for id in endedStreams.take() { streams.removeValue(forKey: id) }
    }

    /// Calls `receive` with every event the publisher sends, at the same moment and under the
    /// same lock, until the returned value is cancelled: HeadingKit's stages use it instead of a
    /// subscription to ``publisher``.
    /// - Parameters:
    ///   - receive: Called with each event, in order.
    ///   - receiveBatch: Called with each batch (a flat-out replay's headings), oldest first;
    ///     by default `receive` with each in turn.
    /// - Returns: A cancellable that stops the calls.
    package func addStage(
        _ receive: @escaping @Sendable (HeadingEvent) -> Void,
        batch receiveBatch: (@Sendable ([HeadingEvent]) -> Void)? = nil
    ) -> AnyCancellable {
        stages.add(receive, batch: receiveBatch)
    }

    // MARK: HeadingSourceDelegate

    /// Delivers the heading to every subscriber if the proxy is enabled and the heading passes ``headingFilter``.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - heading: The heading.
    public func headingSource(_ source: any HeadingSource, didUpdate heading: Heading) {
        lock.withLock {
            guard machine.shouldDeliver(heading) else { return }
            publish(.heading(heading))
        }
    }

    /// Delivers the headings that pass ``headingFilter`` to every subscriber, oldest first, if the
    /// proxy is enabled: one at a time to its publisher and async sequences, as one batch to
    /// HeadingKit's stages (and so to the notification center as one notification).
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - headings: The headings, oldest first.
    public func headingSource(_ source: any HeadingSource, didUpdateHeadings headings: [Heading]) {
        lock.withLock {
            // The reused array is taken out and put back, and the state machine admits the
            // batch in one call: one run-time exclusivity check each, not one per heading.
            var admitted: [HeadingEvent] = []
            swap(&admitted, &batch)
            defer { swap(&admitted, &batch) }
            admitted.removeAll(keepingCapacity: true)
            machine.admit(headings, into: &admitted)
            guard !admitted.isEmpty else { return }
            if delivery.isImmediate { return send(contentsOf: admitted) }
            let events = admitted
            let generation = machine.headingGeneration
            delivery.perform { [weak self] in
                guard let self else { return }
                self.lock.withLock {
                    guard generation == self.machine.headingGeneration else { return }
                    self.send(contentsOf: events)
                }
            }
        }
    }

    /// Delivers the fault to every subscriber if the proxy is enabled. The stream goes on. A
    /// `permissionDenied` fault is also kept as the reason a later ``enable()`` reports.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - fault: What went wrong.
    public func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault) {
        lock.withLock {
            guard machine.shouldDeliver(fault) else { return }
            publish(.fault(fault))
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
        let (start, stop): (Bool, Bool) = lock.withLock {
            guard case .publish(let status, let refusal, let start, let stop) = machine.authorizationChanged(to: status) else { return (false, false) }
            publish(.authorizationChanged(status))
            if let refusal { publish(.fault(refusal)) }
            return (start, stop)
        }
        // Outside the lock, as for disable(): a source thread delivering an event needs the lock.
        if stop { source.stop() }
        if start { source.start() }
    }

    /// Hands one event to every subscriber, as ``delivery`` says. Called with `lock` held, so
    /// events never overtake each other. A heading or fault queued before a ``disable()`` is
    /// dropped when its turn comes, and a heading queued before a refusal (`denied`,
    /// `restricted`); the faults queued before a refusal are delivered, before it, since they say
    /// why. An authorization change is state, and always delivered.
    private func publish(_ event: HeadingEvent) {
        guard !delivery.isImmediate else { return send(event) }
        enum Kind { case heading, fault, state }
        let kind: Kind = switch event {
        case .heading: .heading
        case .authorizationChanged: .state
        case .fault, .notice: .fault
        }
        let generation = kind == .heading ? machine.headingGeneration : machine.generation
        delivery.perform { [weak self] in
            guard let self else { return }
            self.lock.withLock {
                switch kind {
                case .state: break
                case .heading: guard generation == self.machine.headingGeneration else { return }
                case .fault: guard generation == self.machine.generation else { return }
                }
                self.send(event)
            }
        }
    }

    /// Calls every subscriber with `event`, now. Called with `lock` held.
    private func send(_ event: HeadingEvent) {
        if publisherRequested.load(ordering: .acquiring) { subject.send(event) }
        stages.send(event)
        removeEndedStreams()
        for sink in streams.values { sink.yield(event) }
    }

    /// Calls every subscriber with each of `events`, now: the publisher and the streams one at a
    /// time, the stages with the batch. A sink that calls ``disable()`` mid-batch ends it there,
    /// for every subscriber, as it would end single headings. Called with `lock` held.
    private func send(contentsOf events: [HeadingEvent]) {
        let generation = machine.headingGeneration
        var delivered = events.count
        if publisherRequested.load(ordering: .acquiring) {
            delivered = 0
            for event in events {
                guard machine.headingGeneration == generation else { break }
                subject.send(event)
                delivered += 1
            }
        }
        let events = delivered == events.count ? events : Array(events.prefix(delivered))
        stages.send(contentsOf: events)
        removeEndedStreams()
        for sink in streams.values {
            for event in events { sink.yield(event) }
        }
    }
}
