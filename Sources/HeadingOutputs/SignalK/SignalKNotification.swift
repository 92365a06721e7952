// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import HeadingKit

/// One Signal K notification as headingd raises or clears it: a path under `notifications.`, an
/// alarm state, how to raise it, and a message naming the source and the reason.
public struct SignalKNotification: Sendable, Hashable {
    /// Signal K's alarm states that headingd uses, least severe first.
    public enum State: String, Sendable, Hashable, Comparable {
        /// Nothing is wrong (a notification cleared).
        case normal
        /// Something to know: a bad line in an input that was skipped.
        case alert
        /// Something to act on soon: sources disagree, a model or calibration is out of date.
        case warn
        /// Headings are not coming (a device lost, a source unavailable or stale, access refused), or
        /// cannot be trusted (a magnetic source in the magnetic blackout zone).
        case alarm

        private var rank: Int {
            switch self {
            case .normal: 0
            case .alert: 1
            case .warn: 2
            case .alarm: 3
            }
        }

        /// Whether `lhs` is less severe than `rhs`.
        public static func < (lhs: State, rhs: State) -> Bool { lhs.rank < rhs.rank }
    }

    /// How a client raises a notification.
    public enum Method: String, Sendable, Hashable {
        /// Shown.
        case visual
        /// Sounded.
        case sound
    }

    /// The path, `notifications.navigation.heading.` and the fault's code, such as
    /// `notifications.navigation.heading.stale`.
    public let path: String
    /// The state.
    public let state: State
    /// How to raise it: `visual` and `sound` for an alarm, `visual` otherwise, none when normal.
    public let method: [Method]
    /// A sentence naming the source and the reason.
    public let message: String
    /// The source it concerns.
    public let source: String
    /// When it was raised or cleared.
    public let timestamp: Date

    /// The path prefix of every notification headingd raises.
    public static let pathPrefix = "notifications.navigation.heading."

    /// The state a fault with `code` raises: `alarm` when headings stop or cannot be trusted,
    /// `warn` when they are in doubt (`uncalibrated` among them), `alert` for a skipped line.
    public static func state(for code: HeadingFault.Code) -> State {
        switch code {
        case .deviceLost, .sourceUnavailable, .stale, .permissionDenied, .magneticBlackout: .alarm
        case .malformedInput, .outOfRange, .unsupportedInput: .alert
        default: .warn
        }
    }

    /// The notification a fault raises.
    public init(raising fault: HeadingFault) {
        let state = Self.state(for: fault.code)
        self.init(
            path: Self.pathPrefix + fault.code.rawValue, state: state,
            method: state == .alarm ? [.visual, .sound] : [.visual],
            message: "\(fault.source): \(fault.reason)", source: fault.source, timestamp: fault.timestamp
        )
    }

    /// The notification that clears a fault's code.
    public init(clearing code: HeadingFault.Code, source: String, message: String, at timestamp: Date) {
        self.init(path: Self.pathPrefix + code.rawValue, state: .normal, method: [], message: message, source: source, timestamp: timestamp)
    }

    private init(path: String, state: State, method: [Method], message: String, source: String, timestamp: Date) {
        self.path = path
        self.state = state
        self.method = method
        self.message = message
        self.source = source
        self.timestamp = timestamp
    }
}

/// Which notifications are raised, kept from the stream of heading events: each fault raises (or
/// keeps) its code's notification; a source's `recovered` notice clears every code it raised, and
/// its next heading clears the codes a skipped line raised (`alert`s). A code raised by two sources
/// is cleared when neither has it any more. Pure: the events carry their own times.
public struct SignalKNotificationBoard: Sendable {
    /// The sources that have each code raised.
    private var raised: [HeadingFault.Code: Set<String>] = [:]

    /// An empty board.
    public init() {}

    /// The notifications raised now, one per code, by path.
    public var active: [String: HeadingFault.Code] {
        Dictionary(uniqueKeysWithValues: raised.keys.map { (SignalKNotification.pathPrefix + $0.rawValue, $0) })
    }

    /// Takes one event and returns the notifications to send for it, in order (none for most headings).
    public mutating func update(with event: HeadingEvent) -> [SignalKNotification] {
        switch event {
        case .fault(let fault):
            raised[fault.code, default: []].insert(fault.source)
            return [SignalKNotification(raising: fault)]
        case .notice(let notice) where notice.code == .recovered:
            return clear(from: notice.source, at: notice.timestamp, message: "\(notice.source): \(notice.reason)") { _ in true }
        case .heading(let heading) where !raised.isEmpty:
            return clear(from: heading.source, at: heading.timestamp, message: "\(heading.source): headings again") {
                SignalKNotification.state(for: $0) == .alert
            }
        default:
            return []
        }
    }

    private mutating func clear(
        from source: String, at timestamp: Date, message: String, where matches: (HeadingFault.Code) -> Bool
    ) -> [SignalKNotification] {
        var cleared: [SignalKNotification] = []
        for code in raised.keys.sorted(by: { $0.rawValue < $1.rawValue }) where matches(code) {
            guard raised[code]?.remove(source) != nil else { continue }
            if raised[code]?.isEmpty == true {
                raised[code] = nil
                cleared.append(SignalKNotification(clearing: code, source: source, message: message, at: timestamp))
            }
        }
        return cleared
    }
}
