// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Synchronization

/// Lines collected and written in large blocks: for a flat-out replay, where one `write(2)` per
/// line would cost more than formatting it. Live sources never use it — their lines must go
/// out at once.
final class OutputBuffer: Sendable {
    private let writer: LineWriter
    private let capacity: Int
    private let bytes: Mutex<[UInt8]>

    /// Creates a buffer in front of `writer`.
    /// - Parameters:
    ///   - writer: Where the lines go.
    ///   - capacity: How many bytes to collect before writing them. Default 64 KiB.
    init(writer: LineWriter, capacity: Int = 64 * 1024) {
        self.writer = writer
        self.capacity = capacity
        var storage = [UInt8]()
        storage.reserveCapacity(capacity + 512)
        bytes = Mutex(storage)
    }

    deinit { flush() }

    /// Adds the line for `heading` (a newline is added), formatted straight into the block;
    /// writes the block when it is full.
    /// - Parameters:
    ///   - heading: The heading.
    ///   - formatter: What makes its line.
    /// - Returns: The error of a block write that failed, or `nil`.
    @discardableResult
    func append(_ heading: Heading, formattedBy formatter: HeadingLineFormatter) -> LineWriter.WriteError? {
        bytes.withLock { bytes in
            if LineWriter.usesJournalPriorities { bytes.append(contentsOf: LineWriter.Priority.info.prefix.utf8) }
            formatter.append(heading, to: &bytes)
            bytes.append(0x0A)
            return bytes.count >= capacity ? write(&bytes) : nil
        }
    }

    /// Writes whatever is collected.
    /// - Returns: The error of a write that failed, or `nil`.
    @discardableResult
    func flush() -> LineWriter.WriteError? {
        bytes.withLock { write(&$0) }
    }

    private func write(_ bytes: inout [UInt8]) -> LineWriter.WriteError? {
        guard !bytes.isEmpty else { return nil }
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes.withUnsafeBufferPointer { writer.write($0) }
    }
}
