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
    /// Why a character device could not be opened.
    package enum Failure: Error, Sendable {
        /// Not there (`ENOENT`: under a unit with `PrivateDevices=yes`, `/dev` holds no device).
        case missing(String)
        /// There, but not a character device.
        case notCharacterDevice
        /// Another program has it open (`EBUSY`: the kernel lets one reader have an IIO buffer).
        case busy
        /// It cannot be opened: the system's reason, and whether it is a refusal (`EACCES`, `EPERM`).
        case cannotOpen(String, isRefusal: Bool)
    }

    /// What one read brought.
    package enum Read {
        /// This many bytes.
        case bytes(Int)
        /// Nothing waiting (`EAGAIN`, or a signal).
        case nothing
        /// The device ended: a character device that is there never does.
        case ended
        /// The system's reason the read failed.
        case failed(String)
    }

    /// The path it was opened at.
    package let path: String
    /// The open descriptor, to wait on with ``waitReadable(_:milliseconds:)``.
    package let descriptor: Int32

    /// Opens `path` for reading without waiting.
    /// - Throws: ``Failure``.
    package init(path: String) throws(Failure) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let error = errno
            throw error == ENOENT ? .missing(String(cString: strerror(error))) : .cannotOpen(String(cString: strerror(error)), isRefusal: Self.isRefusal(error))
        }
        guard status.st_mode & S_IFMT == S_IFCHR else { throw .notCharacterDevice }
        let opened = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else {
            let error = errno
            throw error == EBUSY ? .busy : .cannotOpen(String(cString: strerror(error)), isRefusal: Self.isRefusal(error))
        }
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
        return .failed(String(cString: strerror(error)))
    }

    /// Waits at most `milliseconds` for any of `descriptors` to be readable (or to hang up).
    package static func waitReadable(_ descriptors: [Int32], milliseconds: Int32) {
        var requests = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        _ = poll(&requests, nfds_t(requests.count), milliseconds)
    }

    private static func isRefusal(_ error: Int32) -> Bool { error == EACCES || error == EPERM }
}
