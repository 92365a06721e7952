// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// A file read to its end with `read(2)` in a loop, bounded: the one reader of the daemon's
/// configuration files, of `/proc`, of kept state and of calibration files.
///
/// Not `String(contentsOfFile:)`: in Swift 6.3's FoundationEssentials on Linux it leaks a 4 KiB
/// buffer per call (heaptrack: 4,096 B per SIGHUP reload), and it stops short on a `/proc` file,
/// which gives at most a page a read and reports a size of 0.
package enum WholeFile {
    /// What was read.
    package struct Contents {
        /// The bytes, at most `limit` and one chunk more.
        package var bytes: [UInt8]
        /// Whether the end of the file came before `limit` was passed.
        package var isComplete: Bool
    }

    /// Reads `descriptor` until its end, or until more than `limit` bytes have come.
    /// - Parameters:
    ///   - descriptor: An open descriptor; left open.
    ///   - limit: The most bytes wanted.
    ///   - chunkSize: The size of each `read(2)`.
    /// - Throws: ``PortFailure`` when a read fails (other than by an interrupt).
    package static func read(_ descriptor: Int32, limit: Int, chunkSize: Int = 64 * 1024) throws(PortFailure) -> Contents {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return Contents(bytes: bytes, isComplete: true) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            bytes += chunk[0..<count]
        }
        return Contents(bytes: bytes, isComplete: false)
    }

    /// A file the daemon keeps in its state directory, read without waiting and bounded: `nil` when
    /// it is absent or cannot be read; refused (as incomplete, empty) when it is no regular file (a
    /// FIFO never answers); at most `limit` bytes and a chunk, ``Contents/isComplete`` saying whether
    /// that was all.
    /// - Parameters:
    ///   - path: The file.
    ///   - limit: The most bytes wanted.
    package static func readKept(path: String, limit: Int) -> Contents? {
        switch RegularFile.open(path) {
        case .failure(let failure) where failure.code == .wrongKind: return Contents(bytes: [], isComplete: false)
        case .failure: return nil
        case .success(let opened):
            defer { close(opened.descriptor) }
            if opened.size > limit { return Contents(bytes: [], isComplete: false) }
            return try? read(opened.descriptor, limit: limit)
        }
    }

    /// The file at `path`, read to its end (a `/proc` file too), or up to `limit` bytes and a
    /// chunk: `nil` when it cannot be opened or read.
    package static func read(path: String, limit: Int = 64 << 20) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return try? read(descriptor, limit: limit).bytes
    }
}
