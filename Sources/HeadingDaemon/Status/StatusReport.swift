// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

/// What a running headingd says of itself: `/status.json`, each event of `/status/events`, and
/// what `headingd status` prints. Times are Unix seconds; every field a consumer may rely on is
/// documented in README ("Status").
struct StatusReport: Codable, Sendable, Equatable {
    /// headingd's version.
    var version: String
    /// When this report was made.
    var time: Double
    /// When the daemon started.
    var startedAt: Double
    /// Seconds the daemon has run.
    var uptimeSeconds: Double
    /// Seconds without a heading before a source, or the heading given, is stale (`stale_after`).
    var staleAfterSeconds: Double
    /// The heading headingd gives.
    var heading: HeadingState
    /// Each source, best first.
    var sources: [Source]
    /// Faults still active (raised and not yet recovered).
    var faults: [Fault]
    /// The network outputs that run, with their clients.
    var outputs: [Output]

    /// The heading headingd gives, and whether it is current.
    struct HeadingState: Codable, Sendable, Equatable {
        /// `ok`, `stale` (the last heading is older than `stale_after`) or `none` (no heading yet).
        var state: String
        /// Degrees from true north, when known.
        var trueHeading: Double?
        /// Degrees from magnetic north, when known.
        var magneticHeading: Double?
        /// Magnetic variation in degrees, east positive, when known.
        var magneticVariation: Double?
        /// Where the variation came from: `device`, `model` or `none`.
        var variationOrigin: String?
        /// The source it came from.
        var source: String?
        /// When the heading was taken.
        var timestamp: Double?
        /// Seconds since it was given (since the start when there has been none).
        var ageSeconds: Double
    }

    /// One source.
    struct Source: Codable, Sendable, Equatable {
        /// Its name (the configured source).
        var name: String
        /// `healthy`, `stale`, `faulted` or `waiting` (nothing heard yet).
        var state: String
        /// Seconds in that state.
        var secondsInState: Double
        /// Whether headingd's heading comes from it now.
        var steering: Bool
        /// Headings it delivered in the last whole second.
        var headingsPerSecond: Double
        /// Headings it delivered since the start.
        var headings: Int64
        /// Faults it raised since the start (malformed input included).
        var errors: Int64
        /// Its last fault, if any.
        var lastFault: Fault?
        /// A magnetometer's calibration (IIO sources); absent for the others.
        var calibration: Calibration?
        /// The deviation card learned for it (`deviation=learn`): learning, or applied; absent for the others.
        var deviation: String?
    }

    /// A magnetometer's calibration, as ``CalibrationStatus`` states it.
    struct Calibration: Codable, Sendable, Equatable {
        /// `none` or `calibrated`.
        var state: String
        /// What was fitted: `hardIron`, `ellipsoid` or `circle`.
        var mode: String?
        /// The fit's RMS residual in µT.
        var residualMicrotesla: Double?
        /// The heading error the residual amounts to, in degrees.
        var headingErrorDegrees: Double?
        /// The sphere's or circle's coverage, 0…1.
        var coverage: Double?
        /// When it was made, Unix time.
        var madeAt: Double?
        /// Its age in seconds.
        var ageSeconds: Double?
        /// The file it came from, or was looked for.
        var file: String?
        /// Why there is none.
        var reason: String?
        /// Whether its hard iron is being refined at sea.
        var refining: Bool?

        init(_ status: CalibrationStatus, at now: Date) {
            state = status.state.rawValue
            mode = status.calibration?.mode.rawValue
            residualMicrotesla = status.calibration?.residual
            headingErrorDegrees = status.calibration?.headingError
            coverage = status.calibration?.coverage
            madeAt = status.calibration?.date.timeIntervalSince1970
            ageSeconds = status.age(at: now)
            file = status.file
            reason = status.reason
            refining = status.refining
        }

        /// One phrase: `ellipsoid, about 0.9° (3 h old)` or `none: REASON`.
        var summary: String {
            guard state == "calibrated" else { return "none" + (reason.map { ": \($0)" } ?? "") }
            let age = ageSeconds.map { seconds in
                seconds < 3600 ? "\(Int(seconds / 60)) min" : seconds < 172_800 ? "\(Int(seconds / 3600)) h" : "\(Int(seconds / 86_400)) d"
            }
            return "\(mode ?? "calibrated"), about " + String(format: "%.1f°", headingErrorDegrees ?? 0) + (age.map { " (\($0) old)" } ?? "")
                + (refining == true ? ", refining at sea" : "")
        }
    }

    /// A fault.
    struct Fault: Codable, Sendable, Equatable {
        /// The source that raised it.
        var source: String
        /// Its code (`stale`, `deviceLost`, …).
        var code: String
        /// Its reason, as logged.
        var reason: String
        /// When it was raised.
        var since: Double
    }

    /// A network output.
    struct Output: Codable, Sendable, Equatable {
        /// `nmea0183_tcp`, `nmea0183_udp`, `nmea0183_serial`, `signalk`, `mqtt` or `nmea2000`.
        var name: String
        /// Clients connected now.
        var clients: Int
        /// Clients refused or dropped since the start.
        var clientsDropped: Int64
        /// Messages written since the start.
        var messages: Int64
        /// Messages dropped for slow clients since the start.
        var messagesDropped: Int64
        /// What the output says of itself (the NMEA 2000 node: `address 35, claimed, NAME …`); absent for nothing more.
        var state: String?
    }

    /// Whether a healthy source delivers (`headingd status` exits 0 then, 3 otherwise).
    var isHealthy: Bool { heading.state == "ok" && sources.contains { $0.state == "healthy" } }

    /// The report as JSON (keys sorted, so that it reads the same each time).
    func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}
