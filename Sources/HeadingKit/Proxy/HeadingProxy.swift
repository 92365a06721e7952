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
/// Call ``enable()`` to start headings and ``disable()`` to stop them, like
/// `startUpdatingHeading()` and `stopUpdatingHeading()`. Subscribe with ``publisher`` (Combine, or
/// OpenCombine on Linux; backed by a `PassthroughSubject`), ``headingPublisher``, or the async
/// sequences ``events(bufferingPolicy:)`` and ``headings(bufferingPolicy:)``.
///
/// A fault is an event, not the end of a stream: after the source recovers, headings flow again to
/// the same subscribers. Only ``disable()``, or the proxy going away, finishes them; a subscription
/// made while disabled receives the events of the next ``enable()``.
///
/// Every subscriber sees every event in the order the source reported it.
///
/// Safety: `@unchecked Sendable` because every stored `var` is read and written only while holding
/// `lock`, an `NSRecursiveLock` that is also held while an event is handed to subscribers, so that
/// they see events in order and may call back into the proxy (for example `disable()`) from a sink.
public final class HeadingProxy: HeadingSourceDelegate, @unchecked Sendable {
    private struct StreamSink {
        let yield: @Sendable (HeadingEvent) -> Void
        let finish: @Sendable () -> Void
    }

    /// The default buffering of ``events(bufferingPolicy:)`` and ``headings(bufferingPolicy:)``:
    /// the newest 1024 events (over 100 s at 10 Hz) wait for a slow consumer; older ones are dropped.
    public static let defaultBufferSize = 1024

    /// The source this proxy is the delegate of.
    public let source: any HeadingSource
    private let restrictionReason: String?
    private let logger: Logger
    private let lock = NSRecursiveLock()
    private var machine: StateMachine
    private var subject = PassthroughSubject<HeadingEvent, Never>()
    private var streams: [Int: StreamSink] = [:]
    private var nextStreamID = 0

    /// Creates a proxy and makes itself the source's delegate. Nothing starts until ``enable()``.
    /// - Parameters:
    ///   - source: The source to manage.
    ///   - restrictionReason: Why configuration forbids this source, or `nil` when it is allowed.
    ///     A restricted proxy reports ``HeadingAuthorizationStatus/restricted`` and never starts its source.
    ///   - logger: Where the proxy logs its lifecycle, at debug level.
    public init(source: any HeadingSource, restrictionReason: String? = nil, logger: Logger = Logger(label: "HeadingKit")) {
        self.source = source
        self.restrictionReason = restrictionReason
        self.logger = logger
        self.machine = StateMachine(isRestricted: restrictionReason != nil)
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

    /// Starts headings: asks for authorization if nobody has, then starts the source once authorized.
    ///
    /// Calling it while enabled does nothing. When authorization was refused, a
    /// ``HeadingFault/Code/permissionDenied`` fault says so and the source is not started.
    public func enable() {
        let action = lock.withLock { machine.enable() }
        logger.debug("heading proxy enabled", metadata: ["source": "\(source.name)"])
        switch action {
        case .none:
            break
        case .requestAuthorization:
            requestAuthorization()
        case .startSource:
            source.start()
        case .reportUnauthorized(let status):
            reportUnauthorized(status)
        }
    }

    /// Stops the source and finishes every subscriber. Calling it while disabled does nothing.
    public func disable() {
        let action = lock.withLock { machine.disable() }
        guard case .finish(let stopSource) = action else { return }
        // The source is stopped outside the lock: a source thread delivering an event needs the lock.
        if stopSource { source.stop() }
        lock.withLock {
            let finished = subject
            let sinks = streams
            subject = PassthroughSubject()
            streams = [:]
            finished.send(completion: .finished)
            for sink in sinks.values { sink.finish() }
        }
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
    /// It never fails; it finishes on ``disable()`` or when the proxy goes away. Sinks are called on
    /// the source's thread: mark sink closures `@Sendable` when written in `@MainActor` code.
    public var publisher: AnyPublisher<HeadingEvent, Never> {
        Deferred { [weak self] () -> AnyPublisher<HeadingEvent, Never> in
            guard let self else { return Empty().eraseToAnyPublisher() }
            return self.lock.withLock { self.subject }.eraseToAnyPublisher()
        }
        .eraseToAnyPublisher()
    }

    /// The headings of ``publisher`` alone.
    public var headingPublisher: AnyPublisher<Heading, Never> {
        publisher.compactMap(\.heading).eraseToAnyPublisher()
    }

    /// Every event as an async sequence, buffered for a slow consumer as `bufferingPolicy` says.
    ///
    /// The sequence finishes on ``disable()`` or when the proxy goes away; a fault does not end it.
    /// - Parameter bufferingPolicy: What to keep while the consumer is busy. Default: the newest
    ///   ``defaultBufferSize`` events, dropping older ones; `.unbounded` keeps everything.
    /// - Returns: A sequence of the events reported from now on.
    public func events(
        bufferingPolicy: AsyncStream<HeadingEvent>.Continuation.BufferingPolicy = .bufferingNewest(defaultBufferSize)
    ) -> AsyncStream<HeadingEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: HeadingEvent.self, bufferingPolicy: bufferingPolicy)
        addStream(StreamSink(yield: { continuation.yield($0) }, finish: { continuation.finish() }), continuation)
        return stream
    }

    /// The headings alone as an async sequence, buffered for a slow consumer as `bufferingPolicy` says.
    ///
    /// The sequence finishes on ``disable()`` or when the proxy goes away; a fault does not end it.
    /// - Parameter bufferingPolicy: What to keep while the consumer is busy. Default: the newest
    ///   ``defaultBufferSize`` headings, dropping older ones; `.unbounded` keeps everything.
    /// - Returns: A sequence of the headings delivered from now on.
    public func headings(
        bufferingPolicy: AsyncStream<Heading>.Continuation.BufferingPolicy = .bufferingNewest(defaultBufferSize)
    ) -> AsyncStream<Heading> {
        let (stream, continuation) = AsyncStream.makeStream(of: Heading.self, bufferingPolicy: bufferingPolicy)
        let sink = StreamSink(
            yield: { event in if let heading = event.heading { continuation.yield(heading) } },
            finish: { continuation.finish() }
        )
        addStream(sink, continuation)
        return stream
    }

    private func addStream<Element>(_ sink: StreamSink, _ continuation: AsyncStream<Element>.Continuation) {
        let id = lock.withLock {
            defer { nextStreamID += 1 }
            streams[nextStreamID] = sink
            return nextStreamID
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.streams.removeValue(forKey: id) }
        }
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

    /// Delivers the fault to every subscriber if the proxy is enabled. The stream goes on.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - fault: What went wrong.
    public func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault) {
        lock.withLock {
            guard machine.shouldDeliverFault() else { return }
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
        let start: Bool = lock.withLock {
            guard case .publish(let status, let start) = machine.authorizationChanged(to: status) else { return false }
            publish(.authorizationChanged(status))
            if machine.isEnabled, status == .restricted || status == .denied { reportUnauthorized(status) }
            return start
        }
        if start { source.start() }
    }

    private func reportUnauthorized(_ status: HeadingAuthorizationStatus) {
        let reason =
            switch status {
            case .restricted: "configuration forbids this source: \(restrictionReason ?? "restricted")"
            default: "access to the source was \(status)"
            }
        lock.withLock {
            publish(.fault(HeadingFault(code: .permissionDenied, source: source.name, reason: reason)))
        }
    }

    /// Hands one event to every subscriber. Called with `lock` held, so events never overtake each other.
    private func publish(_ event: HeadingEvent) {
        subject.send(event)
        for sink in streams.values { sink.yield(event) }
    }
}
