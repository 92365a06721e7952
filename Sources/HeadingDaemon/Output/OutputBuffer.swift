// headingd
// SPDX-License-Identifier: Apache-2.0

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

    /// Adds a line (a newline is added); writes the block when it is full.
    func append(_ line: String) {
        bytes.withLock { bytes in
            if LineWriter.usesJournalPriorities { bytes.append(contentsOf: LineWriter.Priority.info.prefix.utf8) }
            bytes.append(contentsOf: line.utf8)
            bytes.append(0x0A)
            if bytes.count >= capacity { write(&bytes) }
        }
    }

    /// Writes whatever is collected.
    func flush() {
        bytes.withLock { write(&$0) }
    }

    private func write(_ bytes: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBufferPointer { writer.write($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}
