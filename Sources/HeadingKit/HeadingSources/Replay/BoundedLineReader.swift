// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

package import HeadingPorts

/// Reads a file's lines in fixed-size chunks, so memory stays bounded whatever the line length:
/// a line longer than the limit is reported with its length, and its content is not kept. A line
/// ends at LF, CR or CRLF (old Mac tools and some loggers write CR alone).
package final class BoundedLineReader {
    /// One line, or the report of an overlong one.
    package enum Line {
        /// A line's bytes, without the newline, valid until the next call.
        case text(number: Int)
        /// A line longer than the limit, with its full length in bytes.
        case overlong(number: Int, length: Int)
    }

    private let file: ReadableFile
    private let maximumLineLength: Int
    private var chunk: [UInt8]
    private var chunkStart = 0
    private var chunkEnd = 0
    private var isAtEnd = false
    private var lineNumber = 0
    /// The last line ended at a CR: a LF right after it belongs to the same line end.
    private var endedAtCarriageReturn = false
    /// The current line's bytes when it spans two reads (or ends the file); empty otherwise.
    private var pieces: [UInt8] = []
    /// Where the current line is in `chunk`, when it was found whole there (most lines): it is
    /// then read in place, not copied.
    private var lineRange: Range<Int>?

    /// The current line's bytes (for ``Line/text(number:)``), as a new array.
    package var line: [UInt8] { withLine { Array($0) } }

    /// Calls `body` with the current line's bytes (for ``Line/text(number:)``), read in place.
    /// - Parameter body: What reads the line; the buffer is valid only during the call.
    /// - Returns: What `body` returns.
    package func withLine<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let lineRange {
            return try chunk.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineRange])) }
        }
        return try pieces.withUnsafeBufferPointer(body)
    }

    /// Opens a file for reading.
    /// - Parameters:
    ///   - path: The file.
    ///   - maximumLineLength: The longest line kept, in bytes.
    ///   - chunkSize: How much to read at a time.
    /// - Throws: ``PortFailure`` when the file cannot be opened. A directory opens, and its first
    ///   read fails with `EISDIR`.
    package init(path: String, maximumLineLength: Int, chunkSize: Int = 64 * 1024) throws(PortFailure) {
        file = try ReadableFile(path: path)
        self.maximumLineLength = maximumLineLength
        self.chunk = [UInt8](repeating: 0, count: chunkSize)
        pieces.reserveCapacity(min(maximumLineLength, 256))
    }

    /// Reads up to `count` bytes from the start of the file without consuming them, to inspect its format.
    /// - Parameter count: How many bytes to look at.
    /// - Returns: The bytes.
    /// - Throws: ``PortFailure`` when reading fails.
    package func peek(_ count: Int) throws(PortFailure) -> ArraySlice<UInt8> {
        while chunkEnd - chunkStart < min(count, chunk.count), !isAtEnd { try fill() }
        return chunk[chunkStart..<min(chunkEnd, chunkStart + count)]
    }

    /// The next line, or `nil` at the end of the file.
    /// - Throws: ``PortFailure`` when reading fails.
    package func next() throws(PortFailure) -> Line? {
        if !pieces.isEmpty { pieces.removeAll(keepingCapacity: true) }
        lineRange = nil
        var length = 0
        while true {
            if chunkStart == chunkEnd {
                if isAtEnd {
                    guard length > 0 else { return nil }
                    return finish(length: length)
                }
                try fill()
                continue
            }
            if endedAtCarriageReturn {
                endedAtCarriageReturn = false
                if chunk[chunkStart] == Self.lineFeed {
                    chunkStart += 1
                    continue
                }
            }
            let (start, limit) = (chunkStart, chunkEnd)
            let end = chunk.withUnsafeBufferPointer { buffer in
                buffer[start..<limit].firstIndex { $0 == Self.lineFeed || $0 == Self.carriageReturn }
            }
            let stop = end ?? chunkEnd
            let piece = stop - chunkStart
            if length == 0, end != nil, piece <= maximumLineLength {
                lineRange = chunkStart..<stop  // whole in this chunk: read in place
            } else if length + piece <= maximumLineLength {
                pieces.append(contentsOf: chunk[chunkStart..<stop])
            }
            length += piece
            chunkStart = end.map { $0 + 1 } ?? chunkEnd
            if let end {
                endedAtCarriageReturn = chunk[end] == Self.carriageReturn
                return finish(length: length)
            }
        }
    }

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    private func finish(length: Int) -> Line {
        lineNumber += 1
        if length > maximumLineLength {
            pieces.removeAll(keepingCapacity: true)
            lineRange = nil
            return .overlong(number: lineNumber, length: length)
        }
        return .text(number: lineNumber)
    }

    private func fill() throws(PortFailure) {
        if chunkStart > 0 {
            let (start, end) = (chunkStart, chunkEnd)
            // Overlapping regions: copyMemory is a memmove.
            chunk.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: end - start) }
            chunkEnd -= chunkStart
            chunkStart = 0
        }
        guard chunkEnd < chunk.count else { return }
        let end = chunkEnd
        let file = self.file
        let read = chunk.withUnsafeMutableBytes { buffer in
            Result { () throws(PortFailure) in try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...])) }
        }
        let count = try read.get()
        if count == 0 { isAtEnd = true } else { chunkEnd += count }
    }
}
