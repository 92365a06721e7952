// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// A character device read without waiting (an IIO device's buffer, `/dev/iio:deviceN`): opened
/// only when it is one, read with `O_NONBLOCK`, waited on in `poll(2)` by its reader. Closed when
/// released.
///
/// Not Sendable: a reader thread owns it.
package final class CharacterDevice {
    /// What one read brought.
    package enum Read {
        /// This many bytes.
        case bytes(Int)
        /// Nothing waiting (`EAGAIN`, or a signal).
        case nothing
        /// The device ended: a character device that is there never does.
        case ended
        /// The read failed: the system's reason.
        case failed(PortFailure)
    }

    /// The path it was opened at.
    package let path: String
    /// The open descriptor, to wait on with ``waitReadable(_:milliseconds:)``.
    package let descriptor: Int32

    /// Opens `path` for reading without waiting.
    /// - Throws: ``PortFailure``: the system's reason (``PortFailure/isMissing`` for `ENOENT`, as
    ///   under a unit with `PrivateDevices=yes`, whose `/dev` holds no device;
    ///   ``PortFailure/Code/busy`` when another program has it, as the kernel lets one reader have
    ///   an IIO buffer), or ``PortFailure/Code/wrongKind`` for a file that is no character device.
    package init(path: String) throws(PortFailure) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .system(errno) }
        guard status.st_mode & S_IFMT == S_IFCHR else { throw PortFailure(code: .wrongKind, reason: "not a character device") }
        let opened = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else { throw .system(errno) }
        self.path = path
        descriptor = opened
    }

    deinit { close(descriptor) }

    /// Reads what is waiting into `buffer`, without waiting.
    package func read(into buffer: inout [UInt8]) -> Read {
        let descriptor = self.descriptor
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 { return .bytes(count) }
        if count == 0 { return .ended }
        let error = errno
        if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return .nothing }
        return .failed(.system(error))
    }

    /// Waits at most `milliseconds` for any of `descriptors` to be readable (or to hang up).
    package static func waitReadable(_ descriptors: [Int32], milliseconds: Int32) {
        var requests = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        _ = poll(&requests, nfds_t(requests.count), milliseconds)
    }
}
