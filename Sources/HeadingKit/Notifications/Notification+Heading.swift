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

    /// The event any of the heading notifications carries; `nil` for other notifications.
    public var headingEvent: HeadingEvent? {
        // One class cast: far cheaper on Linux than casting `Any` to a struct with strings inside.
        // A heading notification's `userInfo` has one entry: read it without hashing the key (a
        // `HeadingEventBox` can come from nowhere else); with more, look the key up.
        guard let userInfo else { return nil }
        if userInfo.count == 1, let box = userInfo.first?.value as? HeadingEventBox { return box.event }
        return (userInfo[Self.headingValueKey] as? HeadingEventBox)?.event
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
}

/// The event a heading notification carries, in a class: `userInfo` holds it without boxing a
/// struct into an existential, and reading it back is one class cast.
final class HeadingEventBox: Sendable {
    /// The event.
    let event: HeadingEvent

    init(_ event: HeadingEvent) { self.event = event }
}
