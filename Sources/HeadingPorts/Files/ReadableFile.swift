// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// A file opened for reading from start to end with `read(2)` (a recording, whatever its kind:
/// a pipe or a FIFO is read as it comes). Closed when released. Not Sendable: one reader owns it.
package final class ReadableFile {
    private let descriptor: Int32

    /// Opens `path` for reading.
    /// - Throws: ``PortFailure``, the system's reason. A directory opens, and its first read fails
    ///   with `EISDIR`.
    package init(path: String) throws(PortFailure) {
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else { throw .system(errno) }
        descriptor = opened
    }

    deinit { close(descriptor) }

    /// Reads what comes next into `buffer` (a signal's interruption is read again).
    /// - Returns: How many bytes; 0 at the end.
    /// - Throws: ``PortFailure``, the system's reason.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(PortFailure) -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            let error = errno
            if error != EINTR { throw .system(error) }
        }
    }
}
