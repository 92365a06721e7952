// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension Notification {
    /// The `userInfo` key under which each heading notification carries its value.
    static let headingValueKey = "HeadingKit.value"

    /// The heading of a ``Foundation/Notification/Name/headingDidUpdate`` notification; `nil` for any other.
    public var heading: Heading? {
        name == .headingDidUpdate ? userInfo?[Self.headingValueKey] as? Heading : nil
    }

    /// The fault of a ``Foundation/Notification/Name/headingDidFail`` notification; `nil` for any other.
    public var headingFault: HeadingFault? {
        name == .headingDidFail ? userInfo?[Self.headingValueKey] as? HeadingFault : nil
    }

    /// The status of a ``Foundation/Notification/Name/headingAuthorizationDidChange`` notification; `nil` for any other.
    public var headingAuthorizationStatus: HeadingAuthorizationStatus? {
        name == .headingAuthorizationDidChange ? userInfo?[Self.headingValueKey] as? HeadingAuthorizationStatus : nil
    }

    /// The event any of the three heading notifications carries; `nil` for other notifications.
    public var headingEvent: HeadingEvent? {
        switch name {
        case .headingDidUpdate: heading.map(HeadingEvent.heading)
        case .headingDidFail: headingFault.map(HeadingEvent.fault)
        case .headingAuthorizationDidChange: headingAuthorizationStatus.map(HeadingEvent.authorizationChanged)
        default: nil
        }
    }

    /// The notification that carries `event`, posted by `object`.
    /// - Parameters:
    ///   - event: The event to carry.
    ///   - object: The poster, usually a ``HeadingProxy``.
    /// - Returns: A notification with the event's name and the event's value in `userInfo`.
    public static func heading(_ event: HeadingEvent, object: AnyObject?) -> Notification {
        let (name, value): (Notification.Name, any Sendable) =
            switch event {
            case .heading(let heading): (.headingDidUpdate, heading)
            case .fault(let fault): (.headingDidFail, fault)
            case .authorizationChanged(let status): (.headingAuthorizationDidChange, status)
            }
        return Notification(name: name, object: object, userInfo: [headingValueKey: value])
    }
}
