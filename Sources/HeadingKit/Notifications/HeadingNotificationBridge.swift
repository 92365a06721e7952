// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// Posts every event of a ``HeadingProxy`` or a ``HeadingProcessor`` to a notification center, in
/// the order it happened.
///
/// One notification per event, except for a batch — a flat-out replay's headings, which the source
/// reports several at a time — which is one `Notification.Name.headingBatchDidArrive`
/// notification (see `NotificationCenter.heading`). Live sources are never batched (an NMEA 0183
/// stream only batches the sentences one read brought).
///
/// Notifications are posted where the proxy (or processor) delivers (its ``HeadingDelivery``), so
/// the center's observers run there too. The bridge outlives the proxy's enable–disable cycles
/// (``HeadingProxy/disable()`` pauses, it does not finish). It stops when cancelled, when it goes
/// away, or when the proxy (or processor) does.
///
/// Safety: `@unchecked Sendable` because its mutable properties, `subscription` and
/// `isCancelled`, are read and written only while holding `lock`.
public final class HeadingNotificationBridge: @unchecked Sendable {
    /// The poster, the object of each notification; held weakly.
    private weak var poster: AnyObject?
    /// Calls its argument with each of the poster's events until cancelled; `nil` once the
    /// poster is gone. A stage of the poster's, not a subscription to its publisher: no subject
    /// hop per event.
    private let addStage: @Sendable (
        _ receive: @escaping @Sendable (HeadingEvent) -> Void, _ receiveBatch: @escaping @Sendable ([HeadingEvent]) -> Void
    ) -> AnyCancellable?
    private let center: NotificationCenter
    private let lock = NSLock()
    private var subscription: AnyCancellable?
    private var isCancelled = false

    /// Starts posting the proxy's events to `center`.
    /// - Parameters:
    ///   - proxy: The proxy whose events to post; it is the object of each notification.
    ///   - center: Where to post. Default `NotificationCenter.heading`.
    public init(proxy: HeadingProxy, center: NotificationCenter = .heading) {
        self.poster = proxy
        self.addStage = { [weak proxy] receive, receiveBatch in proxy?.addStage(receive, batch: receiveBatch) }
        self.center = center
        subscribe()
    }

    /// Starts posting the processor's events to `center`.
    /// - Parameters:
    ///   - processor: The processor whose events to post; it is the object of each notification.
    ///   - center: Where to post. Default `NotificationCenter.heading`.
    public init(processor: HeadingProcessor, center: NotificationCenter = .heading) {
        self.poster = processor
        self.addStage = { [weak processor] receive, receiveBatch in processor?.addStage(receive, batch: receiveBatch) }
        self.center = center
        subscribe()
    }

    deinit {
        subscription?.cancel()
    }

    /// Stops posting.
    public func cancel() {
        let subscription = lock.withLock {
            isCancelled = true
            defer { self.subscription = nil }
            return self.subscription
        }
        subscription?.cancel()
    }

    private func subscribe() {
        guard !lock.withLock({ isCancelled }) else { return }
        let center = center
        guard
            let cancellable = addStage(
                { [weak self] event in center.post(Notification.heading(event, object: self?.poster)) },
                { [weak self] events in center.post(Notification.heading(contentsOf: events, object: self?.poster)) }
            )
        else { return }
        lock.withLock {
            if isCancelled { cancellable.cancel() } else { subscription = cancellable }
        }
    }
}
