// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// A file opened without waiting and only when it is a regular file: `O_NONBLOCK`, so that a FIFO
/// in its place does not hold `open(2)` until a writer comes, then refused unless `fstat` says a
/// regular file (a FIFO never answers a read, `/dev/zero` never ends, a directory has no content).
/// The one opener of what the outside may swap under the daemon: sysfs attributes, calibration
/// files, configuration files, kept state. Each caller words the failure its own way.
package enum RegularFile {
    /// An open regular file.
    package struct Opened: Sendable {
        /// The descriptor: the caller closes it.
        package let descriptor: Int32
        /// Its size when opened, in bytes.
        package let size: Int
    }

    /// Opens `path` without waiting; refuses anything but a regular file.
    /// - Parameters:
    ///   - path: The file.
    ///   - flags: `O_RDONLY` or `O_WRONLY` (`O_CLOEXEC` and `O_NONBLOCK` are added).
    /// - Returns: The open file, or why not: the system's error, or ``PortFailure/Code/wrongKind``
    ///   with what it is instead as the reason (`a FIFO`, `a directory`, `a device node`, `a
    ///   socket`, `not a regular file`).
    package static func open(_ path: String, flags: Int32 = O_RDONLY) -> Result<Opened, PortFailure> {
        let descriptor = Glibc.open(path, flags | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(.system(errno)) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            let kind = switch status.st_mode & S_IFMT {
            case S_IFIFO: "a FIFO"
            case S_IFDIR: "a directory"
            case S_IFCHR, S_IFBLK: "a device node"
            case S_IFSOCK: "a socket"
            default: "not a regular file"
            }
            close(descriptor)
            return .failure(PortFailure(code: .wrongKind, reason: kind))
        }
        return .success(Opened(descriptor: descriptor, size: Int(status.st_size)))
    }

    /// Closes a descriptor ``open(_:flags:)`` gave.
    package static func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }
}
