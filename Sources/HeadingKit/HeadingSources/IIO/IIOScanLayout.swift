// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Where each enabled channel lies in one scan of an IIO buffer, and how long a scan is: the
/// channels in the order of their `_index`, each aligned to its own length, the scan's length
/// aligned to the longest (the kernel's `iio_compute_scan_bytes`). Three `le:s16/16` axes and the
/// `le:s64/64` timestamp: the axes at 0, 2 and 4, the timestamp at 8, 16 bytes a scan. Pure: the
/// buffered reader's layout, and the test of it.
public struct IIOScanLayout: Sendable, Hashable {
    /// One enabled channel.
    public struct Channel: Sendable, Hashable {
        /// Its name, such as `in_magn_x` or `in_timestamp`.
        public let name: String
        /// Its `_index`: its place in the scan.
        public let index: Int
        /// Its type.
        public let type: IIOScanType
        /// Where it starts in a scan, in bytes.
        public let offset: Int
    }

    /// The channels, in scan order.
    public let channels: [Channel]
    /// The bytes of one scan.
    public let scanSize: Int

    /// Lays out the enabled channels.
    /// - Parameter enabled: Each channel's name, `_index` and type, in any order.
    /// - Throws: ``IIOScanError`` for no channel, an index used twice or out of range, or a
    ///   channel whose length is not a power of two (a repeat of three: kernels have aligned it
    ///   differently).
    public init(_ enabled: [(name: String, index: Int, type: IIOScanType)]) throws(IIOScanError) {
        guard !enabled.isEmpty, enabled.count <= 64 else { throw IIOScanError(reason: "\(enabled.count) channels enabled (1 to 64 are read)") }
        let ordered = enabled.sorted { $0.index < $1.index }
        var channels: [Channel] = []
        var bytes = 0
        var largest = 1
        for (position, channel) in ordered.enumerated() {
            guard channel.index >= 0, channel.index < 1024 else { throw IIOScanError(reason: "\(channel.name): index \(channel.index) (0 to 1023 are read)") }
            if position > 0, ordered[position - 1].index == channel.index {
                throw IIOScanError(reason: "\(ordered[position - 1].name) and \(channel.name) both have index \(channel.index)")
            }
            let length = channel.type.length
            guard length & (length - 1) == 0 else {
                throw IIOScanError(reason: "\(channel.name): \(length) bytes (\(channel.type)), not a power of two: its alignment is not known")
            }
            bytes = (bytes + length - 1) / length * length
            channels.append(Channel(name: channel.name, index: channel.index, type: channel.type, offset: bytes))
            bytes += length
            largest = max(largest, length)
        }
        self.channels = channels
        scanSize = (bytes + largest - 1) / largest * largest
    }

    /// Every channel's values in one scan, in scan order.
    /// - Parameter scan: One scan's bytes.
    /// - Returns: The values of each channel (one a repeat), or `nil` when `scan` is not ``scanSize`` bytes.
    public func values(in scan: some RandomAccessCollection<UInt8>) -> [[Int64]]? {
        guard scan.count == scanSize else { return nil }
        var values: [[Int64]] = []
        values.reserveCapacity(channels.count)
        for channel in channels {
            guard let channelValues = channel.type.values(in: scan, at: channel.offset) else { return nil }
            values.append(channelValues)
        }
        return values
    }
}
