// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole lines to a file descriptor, one `write(2)` per line, so that lines from different
/// threads never interleave and each is visible (to journald, to a pipe) as soon as it is written.
///
/// When systemd connects standard output or error to the journal (`$JOURNAL_STREAM` is set),
/// each line starts with its syslog priority, `<6>` for information, `<4>` for warnings such as
/// faults and `<3>` for errors, which journald reads and strips (sd-daemon(3)); headingd prints
/// no timestamps of its own, so journald's are the only ones.
struct LineWriter: Sendable {
    /// A line's syslog priority.
    enum Priority: Int, Sendable {
        /// `<3>`: headingd cannot do what was asked.
        case error = 3
        /// `<4>`: a fault; headingd carries on.
        case warning = 4
        /// `<5>`: a notice: a source recovered, or headings now come from another source.
        case notice = 5
        /// `<6>`: headings, summaries, progress.
        case info = 6

        /// The prefix journald reads, such as `<6>`.
        var prefix: String { "<\(rawValue)>" }
    }

    /// Whether lines carry priority prefixes: `$JOURNAL_STREAM` is set.
    static let usesJournalPriorities: Bool = getenv("JOURNAL_STREAM").map { $0.pointee != 0 } ?? false

    /// The descriptor written to.
    let fileDescriptor: Int32

    /// Standard output: headings.
    static let standardOutput = LineWriter(fileDescriptor: 1)
    /// Standard error: faults and diagnostics.
    static let standardError = LineWriter(fileDescriptor: 2)

    /// Writes `line` and a newline, retrying after interruptions and partial writes.
    ///
    /// A write that fails (a full disk, `/dev/full`) is abandoned and its error returned: the
    /// caller decides whether that ends headingd (headings) or not (diagnostics).
    /// - Parameters:
    ///   - line: The line, without its newline.
    ///   - priority: Its syslog priority, for journald.
    /// - Returns: The error of a write that failed, or `nil` when the line was written.
    @discardableResult
    func write(_ line: String, priority: Priority = .info) -> WriteError? {
        var text = Self.usesJournalPriorities ? priority.prefix + line : line
        text.append("\n")
        return text.withUTF8 { write($0) }
    }

    /// Writes the line for `heading`, formatted on the stack (a newline added, and journald's
    /// `info` prefix when it reads the output): a live heading's line costs no string.
    /// - Parameters:
    ///   - heading: The heading.
    ///   - formatter: What makes its line.
    /// - Returns: Why the write failed, or `nil`.
    @discardableResult
    func write(_ heading: Heading, formattedBy formatter: HeadingLineFormatter) -> WriteError? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer in
            // A line longer than the stack's room (a source name of kilobytes) goes the way of
            // any other string.
            guard let length = Self.writeLine(for: heading, formattedBy: formatter, into: buffer) else {
                return write(formatter.line(for: heading))
            }
            return write(UnsafeBufferPointer(rebasing: buffer[..<length]))
        }
    }

    /// Writes the whole line for `heading` at the start of `buffer`, as ``write(_:formattedBy:)``
    /// sends it: journald's `info` prefix when it reads the output, the formatter's line, a
    /// newline. The one place that lays a heading line out, for the line written at once and
    /// for the batched output's block.
    /// - Returns: The bytes written, or `nil` when `buffer` has too little room (what was
    ///   written then does not count).
    static func writeLine(
        for heading: Heading, formattedBy formatter: HeadingLineFormatter, into buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> Int? {
        var count = 0
        if usesJournalPriorities {
            for byte in Priority.info.prefix.utf8 {
                guard count < buffer.count else { return nil }
                buffer[count] = byte
                count += 1
            }
        }
        // Room for the newline is kept back.
        guard count < buffer.count,
            let length = formatter.write(heading, into: UnsafeMutableBufferPointer(rebasing: buffer[count..<(buffer.count - 1)]))
        else { return nil }
        count += length
        buffer[count] = 0x0A
        return count + 1
    }

    /// Writes bytes as they are, all of them unless the descriptor fails.
    /// - Parameter bytes: The bytes.
    /// - Returns: The error of a write that failed, or `nil` when every byte was written.
    @discardableResult
    func write(_ bytes: UnsafeBufferPointer<UInt8>) -> WriteError? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let written = Self.systemWrite(fileDescriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return WriteError(errorNumber: written < 0 ? errno : EIO)
            }
        }
        return nil
    }

    /// Why a write failed, with the system's error number.
    struct WriteError: Error, Sendable, CustomStringConvertible {
        /// The `errno` of the failed `write(2)`.
        let errorNumber: Int32
        /// The system's words for it, such as `No space left on device`.
        var description: String { String(cString: strerror(errorNumber)) }
    }

    #if canImport(Glibc)
    private static let systemWrite = Glibc.write
    #else
    private static let systemWrite = Darwin.write
    #endif
}
