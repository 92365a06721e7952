// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit

/// A heading source `scan` found: the exact `--source` URL, of which kind, from what was heard.
struct ScanSource: Sendable, Codable, Equatable {
    /// The kinds, best first: the order `--write-config` ranks them in.
    enum Kind: String, Sendable, Codable, CaseIterable, Comparable {
        /// A gyrocompass (or an inertial attitude unit).
        case gyro
        /// A GNSS compass: two antennas on a fixed baseline.
        case gnssCompass
        /// A magnetic compass on a serial line or a bus: a fluxgate.
        case fluxgate
        /// The magnetometer on the board, through IIO.
        case imu
        /// Course over ground: a heading only while moving.
        case courseOverGround

        /// Words for people.
        var words: String {
            switch self {
            case .gyro: "gyro"
            case .gnssCompass: "dual-antenna GNSS"
            case .fluxgate: "fluxgate"
            case .imu: "IMU"
            case .courseOverGround: "course over ground only"
            }
        }

        static func < (lhs: Kind, rhs: Kind) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }

        /// The scan's kind for the kind a decoder gives a heading.
        init(_ kind: Heading.Kind) {
            switch kind {
            case .inertial: self = .gyro
            case .gnssCompass: self = .gnssCompass
            case .courseOverGround: self = .courseOverGround
            default: self = .fluxgate
            }
        }
    }

    /// The `--source` URL.
    var url: String
    /// Its kind.
    var kind: Kind
    /// What was heard that makes it one, for people and the written configuration's comment.
    var heard: String
    /// Headings (or courses) a second heard.
    var rate: Double
    /// The drop-in the shipped unit needs for it, where it needs one.
    var dropIn: String?
}
