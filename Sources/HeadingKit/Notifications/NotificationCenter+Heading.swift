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
    /// with ``addHeadingEventObserver(from:using:)``, with ``headingPublisher(from:)``, or with the
    /// async sequences ``headingEvents(from:bufferingPolicy:)`` and ``headings(from:bufferingPolicy:)``.
    public static let heading = NotificationCenter()

    /// Calls `block` with every heading event posted to this center, in the order posted.
    ///
    /// One observer sees all three names, so a fault and the headings around it never change
    /// places. The block runs synchronously on the posting thread.
    /// - Parameters:
    ///   - object: Only events posted by this object (a ``HeadingProxy``); `nil` for all.
    ///   - block: Called with each event.
    /// - Returns: The token to pass to `removeObserver(_:)`.
    public func addHeadingEventObserver(
        from object: AnyObject? = nil,
        using block: @escaping @Sendable (HeadingEvent) -> Void
    ) -> any NSObjectProtocol {
        addObserver(forName: nil, object: object, queue: nil) { notification in
            if let event = notification.headingEvent { block(event) }
        }
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

    /// Every heading posted to this center, as a publisher (Combine, or OpenCombine on Linux).
    /// - Parameter object: Only headings posted by this object; `nil` for all.
    /// - Returns: A publisher that never fails or finishes.
    public func headingPublisher(from object: AnyObject? = nil) -> AnyPublisher<Heading, Never> {
        #if canImport(Combine)
        publisher(for: .headingDidUpdate, object: object).compactMap(\.heading).eraseToAnyPublisher()
        #else
        // By hand rather than OpenCombineFoundation's `publisher(for:)`: that module also brings
        // FoundationNetworking (libcurl, TLS, Kerberos) into every process that links HeadingKit.
        let center = self
        return Deferred {
            let subject = PassthroughSubject<Heading, Never>()
            let observer = ObserverToken(
                center.addObserver(forName: .headingDidUpdate, object: object, queue: nil) { notification in
                    if let heading = notification.heading { subject.send(heading) }
                }
            )
            return subject.handleEvents(receiveCancel: { center.removeObserver(observer.token) })
        }
        .eraseToAnyPublisher()
        #endif
    }

    private func observedStream<Element: Sendable>(
        from object: AnyObject?,
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy,
        transform: @escaping @Sendable (HeadingEvent) -> Element?
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let token = addHeadingEventObserver(from: object) { event in
            if let element = transform(event) { continuation.yield(element) }
        }
        // The token is immutable and `removeObserver` is thread-safe, so sending it to the
        // termination handler is safe although `NSObjectProtocol` is not marked Sendable.
        nonisolated(unsafe) let observer = token
        continuation.onTermination = { [weak self] _ in self?.removeObserver(observer) }
        return stream
    }
}

#if !canImport(Combine)
/// An observer token carried into a cancel handler.
///
/// Safety: `@unchecked Sendable` because the token is immutable and only handed back to
/// `NotificationCenter.removeObserver(_:)`, which is thread-safe (the center's own lock).
private final class ObserverToken: @unchecked Sendable {
    let token: any NSObjectProtocol
    init(_ token: any NSObjectProtocol) { self.token = token }
}
#endif
