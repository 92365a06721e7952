// headingd
// SPDX-License-Identifier: Apache-2.0

/// headingd's exit statuses, from `sysexits.h`. The CLI turns a configuration error into
/// ``configurationError``; ``HeadingPipeline/exitStatus(strict:)`` decides the rest from how its
/// replays ended and whether its headings could be written. ArgumentParser exits 64 (`EX_USAGE`) for bad usage by itself.
enum ExitStatus: Int32, Sendable, Comparable {
    /// Everything went as asked.
    case success = 0
    /// `EX_DATAERR`: with `--strict`, a replay skipped a line or was in an unsupported format.
    case dataError = 65
    /// `EX_NOINPUT`: a replay's file could not be read.
    case noInput = 66
    /// `EX_UNAVAILABLE`: an output could not be opened (its address in use, or not this machine's).
    case outputUnavailable = 69
    /// `EX_IOERR`: headings could not be written to standard output (a full disk, `/dev/full`).
    case outputError = 74
    /// `EX_CONFIG`: a setting is wrong, in a file, the environment or an option.
    case configurationError = 78

    static func < (lhs: ExitStatus, rhs: ExitStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}
