// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Synchronization

/// Lines collected and written in large blocks: for a flat-out replay, where one `write(2)` per
/// line would cost more than formatting it. Live sources never use it — their lines must go
/// out at once.
///
/// The formatter writes each line straight into the block (one allocation for the buffer's
/// life), not into an array that is then copied.
final class OutputBuffer: Sendable {
    private let writer: LineWriter
    private let capacity: Int
    private let block: Mutex<Block>

    /// The bytes collected so far, in storage allocated once: `capacity` bytes and room for a
    /// line past it, so that a line always fits after a block that is not yet full.
    private struct Block: ~Copyable {
        let storage: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        init(capacity: Int) { storage = .allocate(capacity: capacity) }
        deinit { storage.deallocate() }

        var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: storage[..<count]) }
        var free: UnsafeMutableBufferPointer<UInt8> { UnsafeMutableBufferPointer(rebasing: storage[count...]) }
    }

    /// Room past `capacity`: a JSON line with a source name of up to a few kilobytes. A longer
    /// line is written on its own (see ``append(_:formattedBy:)``).
    private static let lineRoom = 8 * 1024

    /// Creates a buffer in front of `writer`.
    /// - Parameters:
    ///   - writer: Where the lines go.
    ///   - capacity: How many bytes to collect before writing them. Default 64 KiB.
    init(writer: LineWriter, capacity: Int = 64 * 1024) {
        self.writer = writer
        self.capacity = capacity
        block = Mutex(Block(capacity: capacity + Self.lineRoom))
    }

    deinit { flush() }

    /// Adds the line for `heading` (a newline is added), formatted straight into the block;
    /// writes the block when it is full. A line too long for the room left (a source name of
    /// kilobytes) is written on its own, after the lines before it.
    /// - Parameters:
    ///   - heading: The heading.
    ///   - formatter: What makes its line.
    /// - Returns: The error of a block write that failed, or `nil`.
    @discardableResult
    func append(_ heading: Heading, formattedBy formatter: HeadingLineFormatter) -> LineWriter.WriteError? {
        block.withLock { block in
            if let length = LineWriter.writeLine(for: heading, formattedBy: formatter, into: block.free) {
                block.count += length
                return block.count >= capacity ? write(&block) : nil
            }
            if let error = write(&block) { return error }
            return writer.write(formatter.line(for: heading))
        }
    }

    /// Writes whatever is collected.
    /// - Returns: The error of a write that failed, or `nil`.
    @discardableResult
    func flush() -> LineWriter.WriteError? {
        block.withLock { write(&$0) }
    }

    private func write(_ block: inout Block) -> LineWriter.WriteError? {
        guard block.count > 0 else { return nil }
        defer { block.count = 0 }
        return writer.write(block.written)
    }
}
