// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension Notification {
    /// The `userInfo` key under which each heading notification carries its value.
    static let headingValueKey = "HeadingKit.value"

    /// The heading of a `Notification.Name.headingDidUpdate` notification; `nil` for any other.
    public var heading: Heading? { headingEvent?.heading }

    /// The fault of a `Notification.Name.headingDidFail` notification; `nil` for any other.
    public var headingFault: HeadingFault? { headingEvent?.fault }

    /// The status of a `Notification.Name.headingAuthorizationDidChange` notification; `nil` for any other.
    public var headingAuthorizationStatus: HeadingAuthorizationStatus? {
        if case .authorizationChanged(let status) = headingEvent { return status }
        return nil
    }

    /// The notice of a `Notification.Name.headingStatusDidChange` notification; `nil` for any other.
    public var headingNotice: HeadingNotice? { headingEvent?.notice }

    /// The event any of the single-event heading notifications carries; `nil` for other
    /// notifications, and for a `Notification.Name.headingBatchDidArrive` batch, whose events
    /// ``headingEvents`` gives.
    public var headingEvent: HeadingEvent? {
        // One class cast: far cheaper on Linux than casting `Any` to a struct with strings inside.
        (headingValue as? HeadingEventBox)?.event
    }

    /// Every heading event this notification carries, oldest first: a batch's events, the one
    /// event of any other heading notification, and none for other notifications. Read this
    /// rather than ``headingEvent`` in an observer of every name, and no batch goes unseen.
    public var headingEvents: [HeadingEvent] { heldHeadingEvents }

    /// Every heading event this notification carries, oldest first, as ``headingEvents`` gives
    /// them, but a batch's own array (a reference, not a copy): for an observer that hands a batch
    /// on to another thread.
    package var heldHeadingEvents: [HeadingEvent] {
        let value = headingValue
        if let box = value as? HeadingEventBox { return [box.event] }
        if let batch = value as? HeadingEventBatchBox { return batch.events }
        return []
    }

    /// Calls `body` with every heading event this notification carries, oldest first, without
    /// collecting them: the typed observers' way in.
    /// - Parameter body: Called with each event.
    package func forEachHeadingEvent(_ body: (HeadingEvent) -> Void) {
        let value = headingValue
        if let box = value as? HeadingEventBox {
            body(box.event)
        } else if let batch = value as? HeadingEventBatchBox {
            for event in batch.events { body(event) }
        }
    }

    /// Calls `body` with every event this notification carries but its headings, oldest first,
    /// and returns the newest heading: for a consumer that only keeps the latest heading (a
    /// gauge), which then copies one heading a batch, not one per heading.
    /// - Parameter body: Called with each event that is not a heading.
    /// - Returns: The last heading, if the notification carries one.
    package func forEachNonHeadingEvent(_ body: (HeadingEvent) -> Void) -> Heading? {
        let value = headingValue
        if let box = value as? HeadingEventBox {
            if case .heading(let heading) = box.event { return heading }
            body(box.event)
        } else if let batch = value as? HeadingEventBatchBox {
            var lastHeading: Int?
            for index in batch.events.indices {
                if case .heading = batch.events[index] {
                    lastHeading = index
                } else {
                    body(batch.events[index])
                }
            }
            return lastHeading.flatMap { batch.events[$0].heading }
        }
        return nil
    }

    /// What a heading notification carries (a ``HeadingEventBox`` or a ``HeadingEventBatchBox``),
    /// or anything else under its key. A heading notification's `userInfo` has one entry: it is
    /// read without hashing the key (the boxes come from nowhere else); with more, the key is looked up.
    private var headingValue: Any? {
        guard let userInfo else { return nil }
        return userInfo.count == 1 ? userInfo.first?.value : userInfo[Self.headingValueKey]
    }

    /// The notification that carries `event`, posted by `object`.
    /// - Parameters:
    ///   - event: The event to carry.
    ///   - object: The poster, usually a ``HeadingProxy``.
    /// - Returns: A notification with the event's name and the event's value in `userInfo`.
    public static func heading(_ event: HeadingEvent, object: AnyObject?) -> Notification {
        let name: Notification.Name =
            switch event {
            case .heading: .headingDidUpdate
            case .fault: .headingDidFail
            case .authorizationChanged: .headingAuthorizationDidChange
            case .notice: .headingStatusDidChange
            }
        return Notification(name: name, object: object, userInfo: [headingValueKey: HeadingEventBox(event)])
    }

    /// The notification that carries several events at once, posted by `object`: named
    /// `Notification.Name.headingBatchDidArrive`, with the events in `userInfo`.
    /// - Parameters:
    ///   - events: The events, oldest first.
    ///   - object: The poster, usually a ``HeadingProxy`` or a ``HeadingProcessor``.
    /// - Returns: A batch notification; read its events with ``headingEvents``.
    public static func heading(contentsOf events: [HeadingEvent], object: AnyObject?) -> Notification {
        Notification(name: .headingBatchDidArrive, object: object, userInfo: [headingValueKey: HeadingEventBatchBox(events)])
    }
}

/// The event a heading notification carries, in a class: `userInfo` holds it without boxing a
/// struct into an existential, and reading it back is one class cast.
final class HeadingEventBox: Sendable {
    /// The event.
    let event: HeadingEvent

    init(_ event: HeadingEvent) { self.event = event }
}

/// The events a batch notification carries, in a class, for the same reason as ``HeadingEventBox``.
final class HeadingEventBatchBox: Sendable {
    /// The events, oldest first.
    let events: [HeadingEvent]

    init(_ events: [HeadingEvent]) { self.events = events }
}
