// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Something that produces headings: gpsd, a recording, a simulation.
///
/// Delegate style, like `CLLocationManager`: ``start()`` begins reporting, ``stop()`` ends it, and
/// every heading, fault and authorization change goes to the ``delegate`` in the order it happened,
/// from one thread or task at a time. A source never knows who listens beyond its delegate;
/// ``HeadingProxy`` is the usual one.
///
/// Conforming types are `Sendable` classes: `start()` and `stop()` may be called from any thread.
public protocol HeadingSource: AnyObject, Sendable {
    /// The source's name as consumers see it, such as `simulation` or `replay:/var/log/boat.nmea`.
    var name: String { get }

    /// Receives the source's reports. Held weakly.
    var delegate: (any HeadingSourceDelegate)? { get set }

    /// Asks the source whether it may deliver headings.
    ///
    /// The answer arrives as ``HeadingSourceDelegate/headingSource(_:didChangeAuthorization:)``,
    /// possibly before this method returns. A source that can only tell by trying (gpsd) answers
    /// nothing until ``start()`` has tried: ``HeadingProxy`` then starts it undetermined. A
    /// refusal is reported as a ``HeadingFault/Code/permissionDenied`` fault carrying its reason
    /// (the file, the address), *then* the ``HeadingAuthorizationStatus/denied`` status.
    func requestAuthorization()

    /// Begins delivering reports to the delegate. Calling it while started does nothing.
    func start()

    /// Stops delivering reports. Calling it while stopped does nothing.
    ///
    /// Returns promptly; a report already in flight may still arrive, and receivers that care
    /// (``HeadingProxy`` does) drop reports that arrive after they asked the source to stop.
    func stop()

    /// Whether the source, once refused, keeps trying by itself and reports
    /// ``HeadingAuthorizationStatus/authorized`` when access comes back (a serial device whose
    /// permissions are fixed, a gpsd that lets it in again). ``HeadingProxy`` then keeps it
    /// running after a refusal — delivering nothing from it — so that it can find out; any other
    /// source is stopped by a refusal and started again when authorization is granted. The
    /// default is `false`.
    var keepsTryingAfterDenial: Bool { get }
}

/// The receiver of a ``HeadingSource``'s reports, like `CLLocationManagerDelegate`.
///
/// Called on the source's own thread or task; implementations must be thread-safe.
public protocol HeadingSourceDelegate: AnyObject, Sendable {
    /// The source measured a new heading.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - heading: The heading.
    func headingSource(_ source: any HeadingSource, didUpdate heading: Heading)

    /// The source measured several headings at once, oldest first: like Core Location's
    /// `locationManager(_:didUpdateLocations:)`.
    ///
    /// Only a source that reads faster than they were measured reports this way: a replay flat
    /// out, or an ``StreamHeadingSource`` that received several sentences in one read (a feed
    /// flushed after a pause, a recording piped in). A sentence that arrives on its own is
    /// reported on its own, at once. A fault or an authorization change is
    /// never inside a batch: the headings before it come first. The default implementation calls
    /// ``headingSource(_:didUpdate:)`` with each heading in turn.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - headings: The headings, oldest first; never empty.
    func headingSource(_ source: any HeadingSource, didUpdateHeadings headings: [Heading])

    /// The source hit a fault. Headings may follow once it recovers.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - fault: What went wrong.
    func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault)

    /// The source's authorization changed.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - status: The new status.
    func headingSource(_ source: any HeadingSource, didChangeAuthorization status: HeadingAuthorizationStatus)

    /// A condition the source reported as a fault while still delivering headings has ended (a
    /// magnetic disturbance: the field is the Earth's alone again). The notice's code is
    /// ``HeadingNotice/Code/recovered``: consumers clear what they raised for the source, as when
    /// a stale or faulted source delivers again. The default implementation does nothing.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - notice: What ended, for a person.
    func headingSource(_ source: any HeadingSource, didRecover notice: HeadingNotice)
}

extension HeadingSourceDelegate {
    /// Calls ``headingSource(_:didUpdate:)`` with each heading in turn, oldest first.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - headings: The headings, oldest first.
    public func headingSource(_ source: any HeadingSource, didUpdateHeadings headings: [Heading]) {
        for heading in headings { headingSource(source, didUpdate: heading) }
    }

    /// Does nothing: a delegate that keeps no faults has nothing to clear.
    /// - Parameters:
    ///   - source: The reporting source.
    ///   - notice: What ended.
    public func headingSource(_ source: any HeadingSource, didRecover notice: HeadingNotice) {}
}

extension HeadingSource {
    /// `false`: a refused source is stopped until authorization is granted again.
    public var keepsTryingAfterDenial: Bool { false }
}
