// headingd
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole lines to a file descriptor, one `write(2)` per line, so that lines from different
/// threads never interleave and each is visible (to journald, to a pipe) as soon as it is written.
struct LineWriter: Sendable {
    /// The descriptor written to.
    let fileDescriptor: Int32

    /// Standard output: headings.
    static let standardOutput = LineWriter(fileDescriptor: 1)
    /// Standard error: faults and diagnostics.
    static let standardError = LineWriter(fileDescriptor: 2)

    /// Writes `line` and a newline, retrying after interruptions and partial writes.
    ///
    /// A write that fails (a closed pipe, a full disk) is abandoned: there is nowhere to report it.
    /// - Parameter line: The line, without its newline.
    func write(_ line: String) {
        var text = line
        text.append("\n")
        text.withUTF8 { write($0) }
    }

    /// Writes bytes as they are, all of them unless the descriptor fails.
    /// - Parameter bytes: The bytes.
    func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Self.systemWrite(fileDescriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    #if canImport(Glibc)
    private static let systemWrite = Glibc.write
    #else
    private static let systemWrite = Darwin.write
    #endif
}
