// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Testing

/// A buffer's bytes, as reads give them, made into whole scans: what a hostile device's bytes reach.
struct IIOScanAssemblerTests {
    static func layout(_ channels: [(String, String)]) throws -> IIOScanLayout {
        try IIOScanLayout(channels.enumerated().map { index, channel in (channel.0, index, try IIOScanType(parsing: Array(channel.1.utf8))) })
    }

    /// Three `le:s16/16` axes of `kind`, padding, a `le:s64/64` timestamp: 16 bytes.
    static func scan(_ axes: (Int16, Int16, Int16), timestamp: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in [axes.0, axes.1, axes.2] { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        bytes += [0, 0]
        withUnsafeBytes(of: timestamp.littleEndian) { bytes += $0 }
        return bytes
    }

    static let magnetometer = [("in_magn_x", "le:s16/16>>0"), ("in_magn_y", "le:s16/16>>0"), ("in_magn_z", "le:s16/16>>0"), ("in_timestamp", "le:s64/64>>0")]

    @Test func scansCutAtAnyPlaceBetweenReadsComeOutWholeAndInOrder() throws {
        let layout = try Self.layout(Self.magnetometer)
        #expect(layout.scanSize == 16)
        var values: [(Int16, Int16, Int16, Int64)] = []
        for index in 0..<40 {
            let x = Int16(truncatingIfNeeded: index * 1_000 - 20_000)
            let y: Int16 = Int16.min + Int16(index)
            let z: Int16 = Int16.max - Int16(index)
            let time: Int64 = index % 2 == 0 ? Int64.min + Int64(index) : Int64.max - Int64(index)
            values.append((x, y, z, time))
        }
        let bytes = values.flatMap { Self.scan(($0.0, $0.1, $0.2), timestamp: $0.3) }
        for chunk in 1...(3 * 16 + 1) {
            var assembler = try IIOScanAssembler(layout: layout, types: [.magnetometer])
            var scans: [IIOScanAssembler.Scan] = []
            var offset = 0
            while offset < bytes.count {
                assembler.take(bytes[offset..<min(bytes.count, offset + chunk)]) { scans.append($0) }
                offset += chunk
            }
            #expect(scans.count == values.count, "chunks of \(chunk)")
            let got: [[Double?]] = scans.map { scan in [scan.magnetometer?.x, scan.magnetometer?.y, scan.magnetometer?.z] }
            let wanted: [[Double?]] = values.map { value in [Double(value.0), Double(value.1), Double(value.2)] }
            #expect(got == wanted, "chunks of \(chunk)")
            #expect(scans.map(\.timestamp) == values.map(\.3), "chunks of \(chunk)")
        }
    }

    @Test func oneDeviceReadForTwoInstrumentsGivesBothInEachScan() throws {
        let layout = try Self.layout([
            ("in_accel_x", "le:s16/16>>0"), ("in_accel_y", "le:s16/16>>0"), ("in_accel_z", "le:s16/16>>0"),
            ("in_anglvel_x", "be:s12/16>>4"), ("in_anglvel_y", "be:s12/16>>4"), ("in_anglvel_z", "be:s12/16>>4"),
        ])
        var assembler = try IIOScanAssembler(layout: layout, types: [.accelerometer, .gyroscope])
        // 1, -1, 1024; then -2048, 2047, 0 as 12 bits shifted up by 4, big-endian.
        let bytes: [UInt8] = [1, 0, 0xFF, 0xFF, 0, 4, 0x80, 0x00, 0x7F, 0xF0, 0x00, 0x00]
        var scans: [IIOScanAssembler.Scan] = []
        assembler.take(bytes) { scans.append($0) }
        #expect(scans.count == 1)
        #expect(scans.first?.accelerometer == Vector3(x: 1, y: -1, z: 1024))
        #expect(scans.first?.gyroscope == Vector3(x: -2048, y: 2047, z: 0))
        #expect(scans.first?.timestamp == nil && scans.first?.magnetometer == nil)
        #expect(throws: IIOScanError.self) { try IIOScanAssembler(layout: layout, types: [.magnetometer]) }
    }

    @Test func anyBytesInAnyReadsNeverTrapAndMakeOneScanEverySixteen() throws {
        var generator = SystemRandomNumberGenerator()
        let layout = try Self.layout(Self.magnetometer)
        for _ in 0..<200 {
            var assembler = try IIOScanAssembler(layout: layout, types: [.magnetometer])
            var total = 0
            var scans = 0
            for _ in 0..<Int.random(in: 1...30, using: &generator) {
                let bytes = (0..<Int.random(in: 0...70, using: &generator)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                total += bytes.count
                assembler.take(bytes) { scan in
                    scans += 1
                    #expect(scan.magnetometer.map { [$0.x, $0.y, $0.z].allSatisfy { abs($0) <= 32768 } } == true)
                }
            }
            #expect(scans == total / 16)
        }
    }
}
