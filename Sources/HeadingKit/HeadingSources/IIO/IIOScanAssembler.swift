// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Bytes of an IIO buffer, as reads give them, made into whole scans: each type's three axes and
/// the timestamp taken from their places in the layout, a scan cut between two reads kept for the
/// next. Pure, bounded (at most one scan's bytes wait) and fuzzed: the buffered reader's half that
/// a hostile device's bytes reach.
package struct IIOScanAssembler {
    /// One whole scan: each type's three axes, raw (as `_raw` gives them, before offset and scale).
    package struct Scan: Sendable, Equatable {
        /// The magnetometer's axes, when the buffer is read for it.
        package var magnetometer: Vector3?
        /// The accelerometer's.
        package var accelerometer: Vector3?
        /// The gyroscope's.
        package var gyroscope: Vector3?
        /// The kernel's timestamp in nanoseconds (its `current_timestamp_clock`), when the scan has one.
        package var timestamp: Int64?

        /// The axes of `type`.
        package subscript(type: IIODevice.ChannelType) -> Vector3? {
            switch type {
            case .magnetometer: magnetometer
            case .accelerometer: accelerometer
            case .gyroscope: gyroscope
            }
        }
    }

    /// Each type's X, Y and Z channels.
    private let axes: [(type: IIODevice.ChannelType, channels: [IIOScanLayout.Channel])]
    private let timestamp: IIOScanLayout.Channel?
    /// The bytes of one scan.
    package let scanSize: Int
    /// The bytes of a scan not yet whole.
    private var partial: [UInt8] = []

    /// An assembler for scans laid out as `layout`, read for `types`.
    /// - Throws: ``IIOScanError`` when the layout lacks an axis of a type.
    package init(layout: IIOScanLayout, types: [IIODevice.ChannelType]) throws(IIOScanError) {
        axes = try types.map { type throws(IIOScanError) in
            let channels = ["x", "y", "z"].compactMap { axis in layout.channels.first { $0.name == "in_\(type.rawValue)_\(axis)" } }
            guard channels.count == 3 else { throw IIOScanError(reason: "the scan lacks an axis of in_\(type.rawValue)") }
            return (type, channels)
        }
        timestamp = layout.channels.first { $0.name == "in_timestamp" }
        scanSize = layout.scanSize
        partial.reserveCapacity(scanSize)
    }

    /// Takes bytes read, and hands every scan they make whole to `body`, in order.
    package mutating func take(_ bytes: some Collection<UInt8>, _ body: (Scan) -> Void) {
        var rest = bytes[...]
        // First the scan cut at the end of the last read.
        if !partial.isEmpty {
            let needed = scanSize - partial.count
            partial += rest.prefix(needed)
            rest = rest.dropFirst(needed)
            guard partial.count == scanSize else { return }
            decode(partial, body)
            partial.removeAll(keepingCapacity: true)
        }
        while rest.count >= scanSize {
            decode(Array(rest.prefix(scanSize)), body)
            rest = rest.dropFirst(scanSize)
        }
        partial += rest
    }

    private func decode(_ bytes: [UInt8], _ body: (Scan) -> Void) {
        var scan = Scan(timestamp: timestamp.flatMap { $0.type.values(in: bytes, at: $0.offset)?.first })
        for (type, channels) in axes {
            guard let x = channels[0].type.values(in: bytes, at: channels[0].offset)?.first,
                let y = channels[1].type.values(in: bytes, at: channels[1].offset)?.first,
                let z = channels[2].type.values(in: bytes, at: channels[2].offset)?.first
            else { return }
            let axes = Vector3(x: Double(x), y: Double(y), z: Double(z))
            switch type {
            case .magnetometer: scan.magnetometer = axes
            case .accelerometer: scan.accelerometer = axes
            case .gyroscope: scan.gyroscope = axes
            }
        }
        body(scan)
    }
}
