// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// A sysfs attribute (an IIO channel's `_raw`, `_scale`, `buffer/enable`): opened without waiting
/// and only when it is a regular file (``RegularFile``: a FIFO, a directory or a device node in
/// its place never answers as one), read whole from its start with `pread(2)` (so one descriptor
/// is read again and again), written whole. The IIO source's, `headingd scan`'s and `calibrate`'s
/// one way to the kernel's attributes.
package enum SysfsAttribute {
    /// Why an attribute could not be opened, read or written.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// The system's error number, or 0 when the file opened but is no attribute.
        package let errorNumber: Int32
        /// A sentence for a person: the system's reason, or what the file is instead.
        package let reason: String

        /// Whether the system refused this user (`EACCES`, `EPERM`, or `EROFS`: a read-only `/sys`,
        /// as under a unit's `ProtectKernelTunables`): a permission to grant, not a device missing.
        package var isRefusal: Bool { errorNumber == EACCES || errorNumber == EPERM || errorNumber == EROFS }

        package var description: String { reason }

        init(errorNumber: Int32) {
            self.errorNumber = errorNumber
            reason = String(cString: strerror(errorNumber))
        }

        init(notAttribute kind: String) {
            errorNumber = 0
            reason = "\(kind), not a sysfs attribute"
        }
    }

    /// Opens an attribute for reading, or for writing when `writable`.
    /// - Returns: The open descriptor (``RegularFile/close(_:)`` it), or why not.
    package static func open(_ path: String, writable: Bool = false) -> Result<Int32, Failure> {
        switch RegularFile.open(path, flags: writable ? O_WRONLY : O_RDONLY) {
        case .success(let opened): .success(opened.descriptor)
        case .failure(.cannotOpen(let code)): .failure(Failure(errorNumber: code))
        case .failure(.notRegular(let kind)): .failure(Failure(notAttribute: kind))
        }
    }

    /// Reads an open attribute from its start into `buffer`.
    /// - Returns: How many bytes (0: it read nothing), or the system's reason.
    package static func read(_ descriptor: Int32, into buffer: inout [UInt8]) -> Result<Int, Failure> {
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? .success(count) : .failure(Failure(errorNumber: errno))
    }

    /// The first `limit` bytes of an attribute, or `nil` when it is absent or cannot be read.
    package static func contents(_ path: String, limit: Int = 512) -> [UInt8]? {
        guard case .success(let descriptor) = open(path) else { return nil }
        defer { RegularFile.close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: limit)
        guard case .success(let count) = read(descriptor, into: &bytes) else { return nil }
        return Array(bytes[..<count])
    }

    /// Writes `text` to an attribute (never to a FIFO: ``open(_:writable:)``).
    /// - Returns: `nil`, or why it could not.
    package static func write(_ text: String, to path: String) -> Failure? {
        let descriptor: Int32
        switch open(path, writable: true) {
        case .success(let opened): descriptor = opened
        case .failure(let failure): return failure
        }
        defer { RegularFile.close(descriptor) }
        let written = Array(text.utf8).withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        return written > 0 ? nil : Failure(errorNumber: written < 0 ? errno : EIO)
    }

    /// Whether a file is there (`access(2)`, `F_OK`): a channel a driver has, without opening it.
    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
