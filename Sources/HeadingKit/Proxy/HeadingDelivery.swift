// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Dispatch
import Foundation

/// Where a ``HeadingProxy`` or a ``HeadingProcessor`` calls its subscribers: its publisher's sinks,
/// its async sequences' producers, and so the notification center's observers behind a
/// ``HeadingNotificationBridge``.
///
/// Like Core Location, which calls its delegate on the run loop of the thread that created the
/// manager, the default, ``automatic``, delivers on the main queue — the main actor's executor —
/// when the proxy is created on the main thread, so that a `sink` written in `@MainActor` code (a
/// view model, top-level code) runs where Swift 6 expects it. Created anywhere else, it delivers
/// ``immediate``ly, on the source's thread. Give a ``queue(_:)`` to choose.
///
/// Whatever the delivery, every subscriber sees every event in the order the source reported it.
public struct HeadingDelivery: Sendable {
    enum Kind: Sendable {
        case immediate
        case queue(DispatchQueue)
    }

    let kind: Kind

    /// On the source's own thread, while it reports: no hop and no queue (headingd's choice).
    /// Subscribers must be thread-safe and must not be isolated to an actor.
    public static let immediate = HeadingDelivery(kind: .immediate)

    /// On the main queue, which is the main actor's executor: for `@MainActor` code. The main
    /// queue must be running: an app's run loop, `dispatchMain()`, or top-level code that awaits.
    public static let main = HeadingDelivery(kind: .queue(.main))

    /// On `queue`, asynchronously, in the order reported. Give a serial queue: a concurrent one
    /// would let events overtake each other.
    /// - Parameter queue: The queue to call subscribers on.
    /// - Returns: The delivery.
    public static func queue(_ queue: DispatchQueue) -> HeadingDelivery {
        HeadingDelivery(kind: .queue(queue))
    }

    /// ``main`` when called on the main thread, else ``immediate``: Core Location's rule, decided
    /// where the proxy is created.
    public static var automatic: HeadingDelivery { Thread.isMainThread ? .main : .immediate }

    /// Whether subscribers are called on the reporting thread.
    public var isImmediate: Bool {
        if case .immediate = kind { return true }
        return false
    }

    /// Runs `work` now (``immediate``) or enqueues it on the queue, in call order.
    func perform(_ work: @escaping @Sendable () -> Void) {
        switch kind {
        case .immediate: work()
        case .queue(let queue): queue.async(execute: work)
        }
    }
}
