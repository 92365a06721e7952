// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

#if !canImport(Darwin)
public import Foundation
@preconcurrency public import OpenCombine

// Apple's Foundation has `NotificationCenter.publisher(for:object:)` (with Combine) and
// `notifications(named:object:)`; swift-corelibs-foundation on Linux has neither. These give code
// written against Apple's Foundation the same spellings here, so that it builds unchanged on both.
// By hand rather than OpenCombineFoundation's `publisher(for:)`: that module also brings
// FoundationNetworking (libcurl, TLS, Kerberos, +8 MB) into every process that links HeadingKit.

extension NotificationCenter {
    /// The notifications named `name` posted to this center, as a publisher: Apple Foundation's
    /// `publisher(for:object:)`, for Linux (OpenCombine). It never fails or finishes; cancelling
    /// the subscription removes its observer.
    /// - Parameters:
    ///   - name: The notification name.
    ///   - object: Only notifications posted by this object; `nil` for all.
    /// - Returns: A publisher of the notifications, called where they are posted.
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> AnyPublisher<Notification, Never> {
        let center = self
        let poster = WeakPoster(object)
        return Deferred {
            let subject = PassthroughSubject<Notification, Never>()
            let observation = HeadingObservation(
                center: center,
                token: center.addObserver(forName: name, object: poster.object, queue: nil) { subject.send($0) }
            )
            return subject.handleEvents(receiveCancel: { observation.cancel() })
        }
        .eraseToAnyPublisher()
    }

    /// The notifications named `name` posted to this center from now on, as an async sequence:
    /// Apple Foundation's `notifications(named:object:)`, for Linux. It keeps every notification
    /// until it is read; stop iterating (or cancel the task) to remove its observer.
    /// - Parameters:
    ///   - name: The notification name.
    ///   - object: Only notifications posted by this object; `nil` for all.
    /// - Returns: The notifications, in the order posted.
    public func notifications(named name: Notification.Name, object: AnyObject? = nil) -> AsyncStream<Notification> {
        let (stream, continuation) = AsyncStream.makeStream(of: Notification.self)
        let observation = HeadingObservation(
            center: self,
            token: addObserver(forName: name, object: object, queue: nil) { notification in
                // Notification is not Sendable on Linux (its userInfo is [AnyHashable: Any]); the
                // center hands each one to this observer only, which passes it on untouched.
                nonisolated(unsafe) let posted = notification
                continuation.yield(posted)
            }
        )
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }
}

#endif
