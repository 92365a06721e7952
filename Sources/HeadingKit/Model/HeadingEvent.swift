// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// One thing a heading source reported, in the order it happened.
public enum HeadingEvent: Sendable, Hashable {
    /// A new heading.
    case heading(Heading)
    /// A fault; headings may follow once the source recovers.
    case fault(HeadingFault)
    /// The source's authorization changed.
    case authorizationChanged(HeadingAuthorizationStatus)
    /// A source recovered (said by a ``HeadingProcessor``, or by the source for a condition it
    /// reported), or headings now come from another source (``HeadingProcessor``).
    case notice(HeadingNotice)

    /// The heading this event carries, if it is one.
    public var heading: Heading? {
        if case .heading(let heading) = self { return heading }
        return nil
    }

    /// The notice this event carries, if it is one.
    public var notice: HeadingNotice? {
        if case .notice(let notice) = self { return notice }
        return nil
    }

    /// The fault this event carries, if it is one.
    public var fault: HeadingFault? {
        if case .fault(let fault) = self { return fault }
        return nil
    }
}
