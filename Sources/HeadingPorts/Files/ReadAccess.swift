// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Whether this process may read a file, asked before opening it: what a source answers its
/// authorization from (`access(2)` with `R_OK`).
package enum ReadAccess: Sendable, Equatable {
    /// It may.
    case readable
    /// The system refuses (`EACCES`, `EPERM`): the system's reason, such as "Permission denied".
    case refused(String)
    /// Not known: the file is missing or another error came (opening it will say which).
    case unknown

    /// Asks the system about `path`.
    package static func check(_ path: String) -> ReadAccess {
        if access(path, R_OK) == 0 { return .readable }
        let error = errno
        guard error == EACCES || error == EPERM else { return .unknown }
        return .refused(String(cString: strerror(error)))
    }
}
