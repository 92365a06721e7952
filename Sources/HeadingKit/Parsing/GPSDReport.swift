// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// What one gpsd JSON report (as `gpspipe -w` writes them) says that matters to a heading.
public enum GPSDReport: Sendable, Hashable {
    /// An `ATT` report: a heading (nil when the report has none), its time and device.
    case attitude(HeadingReading?, time: Date?, device: String?)
    /// An `ATT` report whose magnetometer status (`mag_st`) is an alarm: the heading is not trustworthy.
    case attitudeAlarm(HeadingFault.Code, reason: String, time: Date?, device: String?)
    /// A `TPV` report: course over ground with speed in metres per second (nil without a fix, track or
    /// speed), the fix's position and gpsd's magnetic variation (`magvar`) where given, and a
    /// moving-base receiver's heading (`relH`, gpsd 3.21+: a u-blox RELPOSNED's, without its
    /// accuracy or validity flags) where gpsd sends one.
    case position(
        course: HeadingReading?, speed: Double?, fix: GeographicPosition?, variation: Double?, time: Date?, device: String?,
        relativeHeading: HeadingReading? = nil
    )
    /// A `DEVICE` report: a device appeared (activated) or went away (`activated: 0`).
    case device(path: String, isActive: Bool)
    /// An `ERROR` report from gpsd.
    case error(message: String)
    /// Any other class (`VERSION`, `SKY`, `WATCH`, …): nothing about heading.
    case other(className: String)

    /// Whether this is an `ATT` report (a reading or a magnetometer alarm).
    public var isAttitude: Bool {
        switch self {
        case .attitude, .attitudeAlarm: true
        case .position, .device, .error, .other: false
        }
    }

    /// The time the report carries, if any.
    public var time: Date? {
        switch self {
        case .attitude(_, let time, _), .attitudeAlarm(_, _, let time, _), .position(_, _, _, _, let time, _, _): time
        case .device, .error, .other: nil
        }
    }
}
