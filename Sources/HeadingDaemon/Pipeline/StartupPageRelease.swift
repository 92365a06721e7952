// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingPorts
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// Gives back the code pages that start-up touched once the daemon runs.
///
/// Start-up (the options, the configuration, the checking child, the first connections) runs code
/// spread over most of the binary's text, and the kernel maps up to 64 KiB around each page it
/// faults in: a running headingd kept about 16 MB of its 26 MB of code resident, of which the
/// heading path uses a small part. A short while after each start (and after each reload), this
/// service tells the kernel it no longer needs the clean file-backed pages of its own executable
/// and shared libraries (`madvise(MADV_DONTNEED)`): they stay in the page cache, and the ones the
/// running daemon touches come back on their next use (a minor fault each, once), so the resident
/// set shrinks to what headingd actually runs.
///
/// Only mappings that are not writable, belong to a file, and hold no private (copy-on-write)
/// page are released: `/proc/self/smaps` says so (`Anonymous: 0 kB`), so relocated data — made
/// read-only after its relocations (RELRO) but no longer the file's bytes — is never touched.
/// One part of a writable mapping is released too, page by page: the executable's `.rodata`,
/// which the link leaves writable, where a page is still the file's (``WritableReadOnlyData``).
struct StartupPageRelease: Service {
    /// How long after the start the pages are released: start-up's work is done by then.
    let delay: Duration

    /// Waits ``delay`` (or until graceful shutdown), releases the pages once, and then waits for
    /// graceful shutdown.
    func run() async {
        do {
            try await cancelWhenGracefulShutdown { try await Task.sleep(for: delay) }
        } catch {
            return  // shut down first: nothing to give back
        }
        _ = Self.releaseCleanFilePages()
        try? await gracefulShutdown()
    }

    /// Releases the resident clean pages of the process's read-only file mappings.
    /// - Returns: The bytes of the mappings released (their size, not only their resident part).
    static func releaseCleanFilePages() -> Int {
        guard let smaps = WholeFile.read(path: "/proc/self/smaps") else { return 0 }
        let pageSize = UInt(max(4096, sysconf(Int32(_SC_PAGESIZE))))
        // All decided before anything is released, so that only the system calls run after it
        // (code run after the release brings its own pages back).
        let rodata = WritableReadOnlyData.range().map { WritableReadOnlyData.filePages(in: $0, pageSize: pageSize) } ?? []
        var released = 0
        for mapping in cleanReadOnlyFileMappings(smaps) + rodata {
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            let length = Int(mapping.end - mapping.start)  // end > start: checked when parsed
            if madvise(start, length, MADV_DONTNEED) == 0 { released += length }
        }
        return released
    }

    /// One mapping's address range.
    struct Mapping: Equatable {
        /// The first address.
        let start: UInt
        /// The address after the last.
        let end: UInt
    }

    /// The mappings of `smaps` (the text of `/proc/PID/smaps`) that are safe to release: not
    /// writable, backed by a file (a path, not `[vdso]` or an anonymous mapping), and with no
    /// private copy of any page.
    static func cleanReadOnlyFileMappings(_ smaps: [UInt8]) -> [Mapping] {
        var result: [Mapping] = []
        var current: (mapping: Mapping, eligible: Bool, anonymousSeen: Bool)?
        func finish() {
            if let current, current.eligible, current.anonymousSeen { result.append(current.mapping) }
        }
        for line in smaps.split(separator: 0x0A, omittingEmptySubsequences: true) {
            guard let first = line.first else { continue }
            // A header starts with its address in lower-case hexadecimal; the fields with a capital.
            if (0x30...0x39).contains(first) || (0x61...0x66).contains(first) {
                if let header = parseHeader(line) {
                    finish()
                    current = (header.mapping, header.eligible, false)
                }
            } else if line.starts(with: anonymousKey) {
                // Only an explicit `Anonymous: 0 kB` makes a mapping eligible.
                let value = line.dropFirst(anonymousKey.count)
                let digits = value.lazy.filter { $0 >= 0x30 && $0 <= 0x39 }
                if !digits.isEmpty, digits.allSatisfy({ $0 == 0x30 }) {
                    current?.anonymousSeen = true
                } else {
                    current?.eligible = false
                }
            }
        }
        finish()
        return result
    }

    /// The field of `smaps` that counts a mapping's private (anonymous) pages.
    private static let anonymousKey = Array("Anonymous:".utf8)

    /// A header line (`start-end perms offset dev inode path`): the range, and whether its
    /// permissions and path allow a release. `nil` for any other line.
    private static func parseHeader(_ line: ArraySlice<UInt8>) -> (mapping: Mapping, eligible: Bool)? {
        let fields = line.split(separator: 0x20, maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5, let dash = fields[0].firstIndex(of: 0x2D),
            let start = hexadecimal(fields[0][..<dash]), let end = hexadecimal(fields[0][(dash + 1)...]), end > start,
            fields[1].count == 4
        else { return nil }
        let permissions = Array(fields[1])
        let path = fields.count == 6 ? fields[5].drop(while: { $0 == 0x20 }) : []
        let eligible = permissions[0] == 0x72 && permissions[1] == 0x2D && permissions[3] == 0x70  // r-?p
            && path.first == 0x2F && !path.hasSuffix(" (deleted)")
        return (Mapping(start: start, end: end), eligible)
    }

    private static func hexadecimal(_ text: ArraySlice<UInt8>) -> UInt? {
        guard !text.isEmpty, text.count <= 16 else { return nil }
        var value: UInt = 0
        for byte in text {
            let digit: UInt
            switch byte {
            case 0x30...0x39: digit = UInt(byte - 0x30)
            case 0x61...0x66: digit = UInt(byte - 0x61 + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }
}

extension ArraySlice<UInt8> {
    fileprivate func hasSuffix(_ suffix: String) -> Bool {
        let bytes = Array(suffix.utf8)
        return count >= bytes.count && self.suffix(bytes.count).elementsEqual(bytes)
    }
}
