// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file on the state directory that cannot be used (an SD card's corruption, a half-written
/// copy, a file of the wrong kind), moved aside under a name that says when, so that headingd
/// starts a new one and the old stays for whoever wants to look at it. A damaged state file is
/// never a reason to stop the heading.
enum DamagedFile {
    /// The name a damaged file is moved to: `PATH.damaged-YYYYMMDDTHHMMSSZ`.
    /// - Parameters:
    ///   - path: The file.
    ///   - date: When it was found damaged.
    /// - Returns: The new path.
    static func asidePath(for path: String, at date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let stamp = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
        return "\(path).damaged-\(stamp)"
    }

    /// Moves `path` aside (and SQLite's `-journal`, `-wal` and `-shm` beside it, which belong to it).
    /// - Parameters:
    ///   - path: The damaged file.
    ///   - date: When it was found damaged. Default now.
    /// - Returns: Where it went.
    /// - Throws: ``Failure`` when it cannot be moved (the directory is not writable).
    static func setAside(_ path: String, at date: Date = Date()) throws(Failure) -> String {
        var aside = asidePath(for: path, at: date)
        var suffix = 1
        while access(aside, F_OK) == 0 {  // two in one second: never over an earlier one
            suffix += 1
            aside = asidePath(for: path, at: date) + "-\(suffix)"
        }
        guard rename(path, aside) == 0 else {
            throw Failure(reason: "cannot move \(path) aside to \(aside): \(String(cString: strerror(errno)))")
        }
        for companion in ["-journal", "-wal", "-shm"] where access(path + companion, F_OK) == 0 {
            _ = rename(path + companion, aside + companion)
        }
        return aside
    }

    /// Moves a damaged state file aside and says so, for the log: `FOUND: moved aside to ASIDE; THEN`,
    /// or `FOUND, and WHY` when it cannot be moved.
    /// - Parameters:
    ///   - path: The damaged file.
    ///   - found: What is wrong with it (`Signal K: PATH holds no vessel URN (damaged?)`).
    ///   - then: What happens instead, once it is aside (`a new identity is made`).
    /// - Returns: The sentence.
    static func setAside(_ path: String, found: String, then: String) -> String {
        do {
            return "\(found): moved aside to \(try setAside(path)); \(then)"
        } catch {
            return "\(found), and \(error)"
        }
    }

    /// Why a file could not be moved aside.
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}
