// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// One thing a ``HeadingSource`` can report to its delegate: a heading, a fault or an
/// authorization change. Notices are not among them: a ``HeadingProcessor`` raises a recovery
/// or a change of source as ``HeadingEvent/notice(_:)``, and a source says a condition it
/// reported has ended with ``HeadingSourceDelegate/headingSource(_:didRecover:)``.
public enum HeadingSourceReport: Sendable, Hashable {
    /// A new heading.
    case heading(Heading)
    /// A fault; headings may follow once the source recovers.
    case fault(HeadingFault)
    /// The source's authorization changed.
    case authorizationChanged(HeadingAuthorizationStatus)

    /// The same report as a ``HeadingEvent``.
    public var event: HeadingEvent {
        switch self {
        case .heading(let heading): .heading(heading)
        case .fault(let fault): .fault(fault)
        case .authorizationChanged(let status): .authorizationChanged(status)
        }
    }

    /// The heading this report carries, if it is one.
    public var heading: Heading? {
        if case .heading(let heading) = self { return heading }
        return nil
    }

    /// The fault this report carries, if it is one.
    public var fault: HeadingFault? {
        if case .fault(let fault) = self { return fault }
        return nil
    }
}
