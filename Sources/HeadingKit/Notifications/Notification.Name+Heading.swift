// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension Notification.Name {
    /// A new heading; read it with `Notification.heading`.
    public static let headingDidUpdate = Notification.Name("HeadingKit.headingDidUpdate")
    /// A fault; read it with `Notification.headingFault`.
    public static let headingDidFail = Notification.Name("HeadingKit.headingDidFail")
    /// An authorization change; read it with `Notification.headingAuthorizationStatus`.
    public static let headingAuthorizationDidChange = Notification.Name("HeadingKit.headingAuthorizationDidChange")
    /// A source recovered or headings now come from another source; read it with `Notification.headingNotice`.
    public static let headingStatusDidChange = Notification.Name("HeadingKit.headingStatusDidChange")
    /// Several heading events at once, oldest first: what a flat-out replay's headings arrive as,
    /// one notification per batch rather than one per heading. Read them with
    /// `Notification.headingEvents`. gpsd and the simulation never batch; an NMEA 0183 stream
    /// batches only the sentences one read brought (a burst). The typed observers
    /// (`NotificationCenter.addHeadingEventObserver(from:using:)`, `headingEvents(from:bufferingPolicy:)`,
    /// `headingPublisher(from:)` and the others) take batches apart and hand out one event at a time.
    public static let headingBatchDidArrive = Notification.Name("HeadingKit.headingBatchDidArrive")
}
