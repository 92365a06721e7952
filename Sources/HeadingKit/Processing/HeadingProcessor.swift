// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Combine)
public import Combine
#else
@preconcurrency public import OpenCombine
#endif

/// The stage between the sources' proxies and the notification center that decides which heading
/// to trust: it turns each source's readings into the vessel's heading and picks the source to
/// deliver from.
///
/// For each heading, from each source (in ``Installation`` order):
/// - the compass's deviation card, then the mounting offset;
/// - the missing true or magnetic heading, from the variation the device sent, else from the
///   World Magnetic Model at the last known position (a source's fix, else the configured one),
///   marked in ``Heading/variationOrigin`` (a warning once when the model is past its years);
/// - optional exponential smoothing on the circle.
///
/// Sources are listed in priority order. Headings are delivered from one *active* source. A source
/// that sends no heading for ``Configuration/staleAfter`` raises a ``HeadingFault/Code/stale``
/// fault; a stale or faulted active source fails over at once to the best healthy one; a better
/// source that is healthy again is failed back to only after ``Configuration/failBackHold``
/// (hysteresis); only while starting up, within the first ``Configuration/staleAfter``, does a
/// better source's first heading take over at once. Each switch is a ``HeadingNotice/Code/sourceChanged`` notice, each recovery a
/// ``HeadingNotice/Code/recovered`` notice. Two healthy sources that disagree by more than
/// ``Configuration/disagreementThreshold`` for ``Configuration/disagreementHold`` raise a
/// ``HeadingFault/Code/disagreement`` fault. Every fault and authorization change of every source
/// is passed on.
///
/// Timing runs on an injected clock, so tests advance it instead of sleeping. Subscribers are
/// called as ``delivery`` says (``HeadingDelivery``), in order.
///
/// Safety: `@unchecked Sendable` because its mutable state (`core`, `outputs`, `subscriptions`,
/// `timer`, `scheduledDeadline`, `isRunning`) is read and written only while holding `lock`, an
/// `NSLock` that is never held while a subscriber runs: outputs are queued in order under it and
/// handed out after it is released (`HeadingBroadcast`).
public final class HeadingProcessor: @unchecked Sendable {
    private let lock = NSLock()
    private var core: Core
    /// The core's outputs for one event, reused from event to event.
    private var outputs: [HeadingEvent] = []
    /// The subscribers — publisher, async sequences, HeadingKit's stages — and the outputs on their way to them.
    private let broadcast = HeadingBroadcast()
    private let proxies: [HeadingProxy]
    private var subscriptions: [AnyCancellable?]
    private var timer: Task<Void, Never>?
    private var scheduledDeadline: Duration?
    private var isRunning = false
    private let now: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    /// Where subscribers are called.
    public let delivery: HeadingDelivery

    /// Creates a processor over proxies in priority order, each with its sensor's installation.
    /// - Parameters:
    ///   - inputs: The proxies, best first, with their installations.
    ///   - configuration: Staleness, hysteresis, disagreement and variation settings.
    ///   - delivery: Where subscribers are called. Default ``HeadingDelivery/automatic``: the main
    ///     queue when created on the main thread, else the thread that reports.
    ///   - clock: The clock staleness and hold times run on.
    public init<C: Clock>(
        inputs: [(proxy: HeadingProxy, installation: Installation)], configuration: Configuration = .init(),
        delivery: HeadingDelivery = .automatic, clock: C
    ) where C.Duration == Duration {
        self.delivery = delivery
        proxies = inputs.map(\.proxy)
        core = Core(sources: inputs.map { ($0.proxy.source.name, $0.installation) }, configuration: configuration)
        subscriptions = Array(repeating: nil, count: inputs.count)
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// Creates a processor over proxies in priority order, timed by `ContinuousClock`.
    /// - Parameters:
    ///   - inputs: The proxies, best first, with their installations.
    ///   - configuration: Staleness, hysteresis, disagreement and variation settings.
    ///   - delivery: Where subscribers are called. Default ``HeadingDelivery/automatic``.
    public convenience init(
        inputs: [(proxy: HeadingProxy, installation: Installation)], configuration: Configuration = .init(),
        delivery: HeadingDelivery = .automatic
    ) {
        self.init(inputs: inputs, configuration: configuration, delivery: delivery, clock: ContinuousClock())
    }

    deinit {
        timer?.cancel()
        for subscription in subscriptions { subscription?.cancel() }
        broadcast.finish()  // the publisher and the async sequences end with the processor
    }

    /// Every delivered heading, fault, authorization change and notice, in order. Never finishes.
    public var publisher: AnyPublisher<HeadingEvent, Never> { broadcast.publisher }

    /// Every delivered event as an async sequence, as ``HeadingProxy/events(bufferingPolicy:)``
    /// gives a proxy's: make it before ``start()`` (and before the proxies are enabled), or the
    /// events before it are missed.
    ///
    /// The sequence finishes when the processor goes away or the consumer stops iterating.
    /// - Parameter bufferingPolicy: What to keep while the consumer is busy. Default: the newest
    ///   ``HeadingProxy/defaultBufferSize`` events, dropping older ones.
    /// - Returns: A sequence of the events delivered from now on.
    public func events(
        bufferingPolicy: AsyncStream<HeadingEvent>.Continuation.BufferingPolicy = .bufferingNewest(HeadingProxy.defaultBufferSize)
    ) -> AsyncStream<HeadingEvent> {
        broadcast.stream(bufferingPolicy: bufferingPolicy) { $0 }
    }

    /// The delivered headings alone as an async sequence; see ``events(bufferingPolicy:)``.
    /// - Parameter bufferingPolicy: What to keep while the consumer is busy.
    /// - Returns: A sequence of the headings delivered from now on.
    public func headings(
        bufferingPolicy: AsyncStream<Heading>.Continuation.BufferingPolicy = .bufferingNewest(HeadingProxy.defaultBufferSize)
    ) -> AsyncStream<Heading> {
        broadcast.stream(bufferingPolicy: bufferingPolicy) { $0.heading }
    }

    /// The delivered faults alone as an async sequence; see ``events(bufferingPolicy:)``.
    /// - Parameter bufferingPolicy: What to keep while the consumer is busy.
    /// - Returns: A sequence of the faults delivered from now on.
    public func faults(
        bufferingPolicy: AsyncStream<HeadingFault>.Continuation.BufferingPolicy = .bufferingNewest(HeadingProxy.defaultBufferSize)
    ) -> AsyncStream<HeadingFault> {
        broadcast.stream(bufferingPolicy: bufferingPolicy) { $0.fault }
    }

    /// The name of the source headings are delivered from, once one has delivered.
    public var activeSourceName: String? { lock.withLock { core.activeSourceName } }

    /// Replaces the deviation card of the source at `index` (in the order of the inputs) while the
    /// processor runs — a card learned at sea (headingd's `deviation=learn`, or a
    /// ``DeviationFitter`` of your own): the source's next magnetic headings are corrected with it.
    /// An index out of range does nothing.
    /// - Parameters:
    ///   - table: The new card; `nil` for none.
    ///   - index: The source's index among the inputs.
    public func setDeviationTable(_ table: DeviationTable?, forSourceAt index: Int) {
        lock.withLock { core.setDeviationTable(table, forSourceAt: index) }
    }

    /// Starts listening to the proxies (enable them after, so nothing is missed). Calling it while started does nothing.
    public func start() {
        let indices: Range<Int>? = lock.withLock {
            guard !isRunning else { return nil }
            isRunning = true
            return proxies.indices
        }
        for index in indices ?? 0..<0 { subscribe(to: index) }
    }

    /// Stops listening and cancels the timer. Calling it while stopped does nothing.
    public func stop() {
        let (cancelled, timer): ([AnyCancellable?], Task<Void, Never>?) = lock.withLock {
            isRunning = false
            defer {
                subscriptions = Array(repeating: nil, count: proxies.count)
                self.timer = nil
                scheduledDeadline = nil
            }
            return (subscriptions, self.timer)
        }
        timer?.cancel()
        for subscription in cancelled { subscription?.cancel() }
    }

    /// Subscribes to one proxy, for as long as the processor runs (a proxy's `disable()` pauses it).
    private func subscribe(to index: Int) {
        guard lock.withLock({ isRunning }) else { return }
        let cancellable = proxies[index].addStage(
            { [weak self] event in self?.receive(event, from: index) },
            batch: { [weak self] events in self?.receive(contentsOf: events, from: index) }
        )
        lock.withLock {
            if isRunning { subscriptions[index] = cancellable } else { cancellable.cancel() }
        }
    }

    private func receive(_ event: HeadingEvent, from index: Int) {
        broadcast.sending(under: lock) {
            guard isRunning else { return false }
            outputs.removeAll(keepingCapacity: true)
            core.receive(event, from: index, at: now(), into: &outputs)
            var deliver = false
            for output in outputs { deliver = send(output) || deliver }
            scheduleTimer()
            return deliver
        }
    }

    /// A batch (a flat-out replay's headings): the core takes each in turn, and the outputs go
    /// on as one batch, timed at one reading of the clock.
    private func receive(contentsOf events: [HeadingEvent], from index: Int) {
        broadcast.sending(under: lock) {
            guard isRunning else { return false }
            // The reused array is taken out and put back: one access to it (and one to the
            // core) for the batch, not one per heading.
            var batch: [HeadingEvent] = []
            swap(&batch, &outputs)
            defer { swap(&batch, &outputs) }
            batch.removeAll(keepingCapacity: true)
            core.receive(contentsOf: events, from: index, at: now(), into: &batch)
            let deliver = send(contentsOf: batch)
            scheduleTimer()
            return deliver
        }
    }

    private func timerFired() {
        broadcast.sending(under: lock) {
            guard isRunning else { return false }
            scheduledDeadline = nil
            var deliver = false
            for output in core.tick(at: now()) { deliver = send(output) || deliver }
            scheduleTimer()
            return deliver
        }
    }

    /// Queues one output for the subscribers, as ``delivery`` says. Called with `lock` held, so
    /// outputs keep their order (in `broadcast.sending(under:_:)`'s body, which delivers when this
    /// returns `true`).
    private func send(_ output: HeadingEvent) -> Bool {
        if delivery.isImmediate { return broadcast.enqueue(output) }
        delivery.perform { [broadcast] in broadcast.send(output) }
        return false
    }

    /// Queues a batch of outputs for the subscribers, as ``delivery`` says. Called with `lock` held.
    private func send(contentsOf outputs: [HeadingEvent]) -> Bool {
        guard !outputs.isEmpty else { return false }
        if delivery.isImmediate { return broadcast.enqueue(contentsOf: outputs) }
        delivery.perform { [broadcast] in broadcast.send(contentsOf: outputs) }
        return false
    }

    /// Calls `receive` with every event the publisher sends, in the same turn, until the returned
    /// value is cancelled: HeadingKit's own consumers (the notification bridge) use it instead of
    /// a subscription to ``publisher``.
    /// - Parameters:
    ///   - receive: Called with each event, in order.
    ///   - receiveBatch: Called with each batch (from a flat-out replay), oldest first; by
    ///     default `receive` with each in turn.
    /// - Returns: A cancellable that stops the calls.
    package func addStage(
        _ receive: @escaping @Sendable (HeadingEvent) -> Void,
        batch receiveBatch: (@Sendable ([HeadingEvent]) -> Void)? = nil
    ) -> AnyCancellable {
        broadcast.add(receive, batch: receiveBatch)
    }

    /// The sources, in priority order (``Installation`` order): what ``addSourceStage(at:_:batch:)``'s
    /// index counts.
    package var sources: [any HeadingSource] { proxies.map(\.source) }

    /// Calls `receive` with every event the source at `index` gives the processor (its proxy's
    /// events: every heading, fault and change of authorization, before the processor chooses),
    /// in the same turn, until the returned value is cancelled: how headingd's per-source consumers
    /// (metrics, the status board, a deviation learner) hear a source, so that everything headingd
    /// takes from the heading path it takes from the processor.
    ///
    /// The events are the proxy's, by the proxy's own broadcast: no hop is added, and they come
    /// whether or not the processor runs.
    /// - Parameters:
    ///   - index: The source's place in ``sources``.
    ///   - receive: Called with each event, in order.
    ///   - receiveBatch: Called with each batch (from a flat-out replay), oldest first; by default
    ///     `receive` with each in turn.
    /// - Returns: A cancellable that stops the calls.
    package func addSourceStage(
        at index: Int, _ receive: @escaping @Sendable (HeadingEvent) -> Void,
        batch receiveBatch: (@Sendable ([HeadingEvent]) -> Void)? = nil
    ) -> AnyCancellable {
        proxies[index].addStage(receive, batch: receiveBatch)
    }

    /// Wakes at the core's next deadline: only an earlier deadline replaces a scheduled one; a
    /// wake for a deadline that has moved later ticks for nothing and schedules the next.
    /// Called with `lock` held.
    private func scheduleTimer() {
        guard let deadline = core.nextDeadline else { return }
        if let scheduledDeadline, scheduledDeadline <= deadline { return }
        timer?.cancel()
        scheduledDeadline = deadline
        let sleep = sleep
        timer = Task { [weak self] in
            do { try await sleep(deadline) } catch { return }
            guard !Task.isCancelled else { return }
            self?.timerFired()
        }
    }
}
