// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Splits the bytes of one sender into lines, keeping at most a bounded line between reads.
///
/// A line ends at LF or CR; empty lines are skipped. A line longer than the limit is reported by
/// its length and its bytes are not kept. A sentence that was cut short — a `$` or `!` arriving
/// inside a line that itself began with one, as when a datagram or a connection was lost
/// mid-sentence — is reported as a fragment, never joined to the sentence that follows.
public struct LineAssembler: Sendable {
    /// The longest line kept, in bytes.
    public let maximumLineLength: Int
    /// The current line's first bytes, when it spans reads (at most ``maximumLineLength``).
    private var partial: [UInt8] = []
    /// The current line's length so far, which may exceed what `partial` keeps.
    private var partialLength = 0

    /// - Parameter maximumLineLength: The longest line kept, in bytes.
    public init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    /// Whether part of a line is waiting for its end.
    public var hasPartialLine: Bool { partialLength > 0 }

    /// Hands each line the bytes complete to `body`, in order, and keeps the rest for the next call.
    /// - Parameters:
    ///   - bytes: What was read.
    ///   - body: Called for each line, overlong line and fragment.
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (StreamPiece) -> Void) {
        var start = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                endLine(bytes, start..<index, body)
                start = index + 1
            } else if byte == 0x24 || byte == 0x21, index > start || partialLength > 0 {  // '$' or '!' inside a line
                let first = partialLength > 0 ? partial.first : bytes[start]
                if first == 0x24 || first == 0x21 {
                    body(.fragment(length: partialLength + index - start))
                    partial.removeAll(keepingCapacity: true)
                    partialLength = 0
                    start = index
                }
            }
        }
        keep(bytes, start..<bytes.count)
    }

    /// Ends the current partial line if it is a complete sentence (it ends with `*` and two
    /// hexadecimal digits): for a datagram whose last sentence has no line end.
    /// - Parameter body: Called with the line, if it was one.
    public mutating func flushCompleteSentence(_ body: (StreamPiece) -> Void) {
        guard partialLength == partial.count, partialLength <= maximumLineLength, partial.count >= 4, partial[partial.count - 3] == 0x2A,
            partial.suffix(2).allSatisfy({ Self.isHexDigit($0) })
        else { return }
        partial.withUnsafeBufferPointer { body(.line($0)) }
        partial.removeAll(keepingCapacity: true)
        partialLength = 0
    }

    /// Drops the partial line, as when its connection ended.
    /// - Returns: How many bytes were dropped.
    public mutating func discard() -> Int {
        defer {
            partial.removeAll(keepingCapacity: true)
            partialLength = 0
        }
        return partialLength
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private mutating func endLine(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ body: (StreamPiece) -> Void) {
        if partialLength == 0 {
            guard !range.isEmpty else { return }
            if range.count > maximumLineLength {
                body(.overlong(length: range.count))
            } else {
                body(.line(UnsafeBufferPointer(rebasing: bytes[range])))
            }
            return
        }
        keep(bytes, range)
        if partialLength > maximumLineLength {
            body(.overlong(length: partialLength))
        } else {
            partial.withUnsafeBufferPointer { body(.line($0)) }
        }
        partial.removeAll(keepingCapacity: true)
        partialLength = 0
    }

    private mutating func keep(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let room = maximumLineLength + 1 - partial.count  // one past the limit marks it overlong
        if room > 0 { partial.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<min(range.upperBound, range.lowerBound + room)])) }
        partialLength += range.count
    }
}
