// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import Synchronization

/// A registration with a notification center that ends when cancelled or released, like
/// `AnyCancellable`: keep it for as long as you observe.
///
/// `Sendable`, so a `Sendable` or actor-isolated model can hold it without `nonisolated(unsafe)`.
/// `NotificationCenter.addHeadingEventObserver(from:using:)` returns one.
public final class HeadingObservation: Sendable, Hashable {
    private let center: NotificationCenter
    /// The center's own token, handed back to `removeObserver(_:)` once; `nil` once removed.
    private let token: Mutex<ObserverToken?>

    /// Wraps a token `addObserver(forName:object:queue:using:)` returned from `center`.
    package init(center: NotificationCenter, token: any NSObjectProtocol) {
        self.center = center
        self.token = Mutex(ObserverToken(token))
    }

    deinit { cancel() }

    /// Removes the observer. Calling it again does nothing.
    public func cancel() {
        guard let token = token.withLock({ token in defer { token = nil }; return token }) else { return }
        center.removeObserver(token.value)
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { token.withLock { $0 == nil } }

    /// Identity: each observation is equal only to itself.
    public static func == (lhs: HeadingObservation, rhs: HeadingObservation) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The center's token, carried across threads.
///
/// Safety: `@unchecked Sendable` because the token is immutable and only handed back to
/// `NotificationCenter.removeObserver(_:)`, which is thread-safe (the center's own lock); it is
/// stored in ``HeadingObservation``'s `Mutex`, which hands it out once.
struct ObserverToken: @unchecked Sendable {
    let value: any NSObjectProtocol
    init(_ value: any NSObjectProtocol) { self.value = value }
}

extension NotificationCenter {
    /// Removes a heading observer: the same as ``HeadingObservation/cancel()``, in the spelling
    /// `removeObserver(_:)` code already uses.
    /// - Parameter observation: What `addHeadingEventObserver(from:using:)` returned.
    public func removeObserver(_ observation: HeadingObservation) {
        observation.cancel()
    }
}
