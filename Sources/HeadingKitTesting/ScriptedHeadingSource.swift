// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import HeadingKit

/// A ``HeadingKit/HeadingSource`` a test drives by hand: it reports exactly what the test sends, on
/// the test's thread, and counts how often it was started, stopped and asked for authorization.
///
/// Use it to test anything that sits behind a source — the proxy, the notification bridge, a
/// consumer — without timing: each ``send(_:)`` reaches the delegate before it returns.
public final class ScriptedHeadingSource: HeadingSource {
    private struct Counts {
        var authorization: HeadingAuthorizationStatus
        var startCount = 0
        var stopCount = 0
        var authorizationRequestCount = 0
        var isRunning = false
    }

    /// The name headings from this source carry.
    public let name: String
    private let state: HeadingSourceState<Counts>

    /// Creates a scripted source.
    /// - Parameters:
    ///   - name: The source name. Default `scripted`.
    ///   - authorization: What ``requestAuthorization()`` answers. Default `.authorized`.
    public init(name: String = "scripted", authorization: HeadingAuthorizationStatus = .authorized) {
        self.name = name
        self.state = HeadingSourceState(Counts(authorization: authorization))
    }

    /// Receives what the test sends. Held weakly.
    public var delegate: (any HeadingSourceDelegate)? {
        get { state.delegate }
        set { state.delegate = newValue }
    }

    /// How many times ``start()`` started the source.
    public var startCount: Int { state.withLock { $0.startCount } }
    /// How many times ``stop()`` stopped a started source.
    public var stopCount: Int { state.withLock { $0.stopCount } }
    /// How many times ``requestAuthorization()`` was called.
    public var authorizationRequestCount: Int { state.withLock { $0.authorizationRequestCount } }
    /// Whether the source is started.
    public var isRunning: Bool { state.withLock { $0.isRunning } }

    /// Answers with the configured authorization, synchronously.
    public func requestAuthorization() {
        let status = state.withLock { state in
            state.authorizationRequestCount += 1
            return state.authorization
        }
        state.report(.authorizationChanged(status), from: self)
    }

    /// Marks the source started; does nothing while started.
    public func start() {
        state.withLock { state in
            guard !state.isRunning else { return }
            state.isRunning = true
            state.startCount += 1
        }
    }

    /// Marks the source stopped; does nothing while stopped.
    public func stop() {
        state.withLock { state in
            guard state.isRunning else { return }
            state.isRunning = false
            state.stopCount += 1
        }
    }

    /// Reports an event to the delegate now, whether or not the source is started — so that tests
    /// can check what receivers do with late reports.
    /// - Parameter report: The heading, fault or authorization change to report.
    public func send(_ report: HeadingSourceReport) {
        state.report(report, from: self)
    }

    /// Reports several headings to the delegate in one call, as a flat-out replay does, whether
    /// or not the source is started.
    /// - Parameter headings: The headings, oldest first; nothing is reported when empty.
    public func send(headings: [Heading]) {
        state.report(headings: headings, from: self)
    }

    /// Reports a heading with the given true heading, timestamped `timestamp`.
    /// - Parameters:
    ///   - trueHeading: Degrees from true north.
    ///   - timestamp: The heading's time. Default: the epoch.
    public func send(trueHeading: Double, timestamp: Date = Date(timeIntervalSince1970: 0)) {
        send(.heading(Heading(trueHeading: trueHeading, magneticHeading: nil, timestamp: timestamp, source: name)))
    }
}

