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
    /// Opens an attribute for reading, or for writing when `writable`.
    /// - Returns: The open descriptor (``RegularFile/close(_:)`` it), or why not: the system's
    ///   reason (a refusal includes `EROFS`, a read-only `/sys`, as under a unit's
    ///   `ProtectKernelTunables=`), or what the file is instead (`a FIFO, not a sysfs attribute`).
    package static func open(_ path: String, writable: Bool = false) -> Result<Int32, PortFailure> {
        RegularFile.open(path, flags: writable ? O_WRONLY : O_RDONLY)
            .map(\.descriptor)
            .mapError { failure in
                failure.code == .wrongKind ? PortFailure(code: .wrongKind, reason: "\(failure.reason), not a sysfs attribute") : failure
            }
    }

    /// Reads an open attribute from its start into `buffer`.
    /// - Returns: How many bytes (0: it read nothing), or the system's reason.
    package static func read(_ descriptor: Int32, into buffer: inout [UInt8]) -> Result<Int, PortFailure> {
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? .success(count) : .failure(.system(errno))
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
    package static func write(_ text: String, to path: String) -> PortFailure? {
        let descriptor: Int32
        switch open(path, writable: true) {
        case .success(let opened): descriptor = opened
        case .failure(let failure): return failure
        }
        defer { RegularFile.close(descriptor) }
        let written = Array(text.utf8).withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        return written > 0 ? nil : PortFailure.system(written < 0 ? errno : EIO)
    }

    /// Whether a file is there (`access(2)`, `F_OK`): a channel a driver has, without opening it.
    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
