// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// What one NMEA 0183 sentence says that matters to a heading: a heading, a course over ground, a
/// time, or nothing.
public struct NMEAReport: Sendable, Hashable {
    /// A time the sentence carries: a full UTC date and time, or only a time of day.
    public enum Time: Sendable, Hashable {
        /// A UTC date and time (RMC, ZDA), in seconds since 1970.
        case date(secondsSince1970: Double)
        /// A UTC time of day without a date (PASHR), in seconds since midnight.
        case timeOfDay(seconds: Double)
    }

    /// What the sentence reports about heading.
    public enum Content: Sendable, Hashable {
        /// A heading (HDT, HDG, HDM, THS, PASHR, PTNTHTM).
        case heading(HeadingReading)
        /// A heading sentence that says there is no heading now: `$GPHDT,,T`, or THS mode `V`.
        case noHeading
        /// Course over ground (RMC, VTG), with the speed in metres per second.
        case course(HeadingReading, speed: Double)
        /// A compass status alarm (PTNTHTM): the heading is not trustworthy.
        case alarm(HeadingFault.Code, reason: String)
        /// Nothing about heading: a sentence type HeadingKit does not use, or one without a valid fix.
        case none
    }

    /// The sentence's address, such as `GPHDT`.
    public let address: String
    /// What the sentence reports.
    public let content: Content
    /// The time the sentence carries, if any.
    public let time: Time?
    /// The position of a valid fix the sentence carries (RMC), if any.
    public let position: GeographicPosition?

    init(address: String, content: Content, time: Time?, position: GeographicPosition? = nil) {
        self.address = address
        self.content = content
        self.time = time
        self.position = position
    }

    /// Whether sentences of this type are heading sentences, which gpsd also turns into `ATT`
    /// reports — whatever this one's values, even when they fail to decode.
    /// - Parameter type: A sentence type such as `HDT` or `PASHR`.
    public static func isAttitudeType(_ type: String) -> Bool {
        NMEASentenceType(name: type).isAttitude
    }

    /// Whether sentences of this type carry course over ground, which gpsd also turns into a `TPV` track.
    /// - Parameter type: A sentence type such as `RMC`.
    public static func isCourseType(_ type: String) -> Bool { NMEASentenceType(name: type).isCourse }
}
