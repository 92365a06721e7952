// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// Something that changed for the better or changed hands: a source recovered, or the heading
/// now comes from another source. Faults say what went wrong; notices say what was done about it.
public struct HeadingNotice: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What happened, as a stable code.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The code's stable name, as written in logs and JSON.
        public let rawValue: String

        /// Creates a code from its stable name.
        /// - Parameter rawValue: The name, such as `recovered`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A source that was stale or faulted delivers headings again, or a source says a
        /// condition it reported as a fault has ended (a magnetic disturbance: the field is the
        /// Earth's alone again).
        public static let recovered = Code(rawValue: "recovered")
        /// Headings now come from another source: a failover, or a fail-back after the hold time.
        public static let sourceChanged = Code(rawValue: "sourceChanged")
        /// The World Magnetic Model's horizontal field where the vessel is lies between 2,000 and
        /// 6,000 nT (NOAA's caution zone): a magnetic source's heading may be erratic. Once per
        /// magnetic source on entering the zone.
        public static let magneticCaution = Code(rawValue: "magneticCaution")

        /// The code's stable name.
        public var description: String { rawValue }
    }

    /// What happened.
    public let code: Code
    /// The source concerned: the one that recovered, or the one delivering now.
    public let source: String
    /// For ``Code/sourceChanged``, the source that delivered before.
    public let previousSource: String?
    /// A sentence for a person.
    public let reason: String
    /// When it happened.
    public let timestamp: Date

    /// Creates a notice.
    /// - Parameters:
    ///   - code: What happened.
    ///   - source: The source concerned.
    ///   - previousSource: The source that delivered before, for a change of source.
    ///   - reason: A sentence for a person.
    ///   - timestamp: When it happened.
    public init(code: Code, source: String, previousSource: String? = nil, reason: String, timestamp: Date = Date()) {
        self.code = code
        self.source = source
        self.previousSource = previousSource
        self.reason = reason
        self.timestamp = timestamp
    }

    /// One line naming the source, the code and the reason.
    public var description: String { "\(source): \(code): \(reason)" }
}
