// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// One classic CAN frame: a 29-bit identifier and up to 8 data bytes, held inline (no allocation).
public struct CANFrame: Sendable, Hashable, CustomStringConvertible {
    /// The frame's identifier.
    public let identifier: CANIdentifier
    /// How many data bytes it carries, 0 to 8.
    public let count: Int
    /// The data bytes, the first in the lowest byte.
    public let data: UInt64

    /// Makes a frame from its identifier and data.
    /// - Parameters:
    ///   - identifier: The identifier.
    ///   - bytes: Up to 8 bytes; `nil` when there are more.
    public init?(identifier: CANIdentifier, bytes: some Collection<UInt8>) {
        guard bytes.count <= 8 else { return nil }
        var data: UInt64 = 0
        for (index, byte) in bytes.enumerated() { data |= UInt64(byte) << (8 * UInt64(index)) }
        self.init(identifier: identifier, count: bytes.count, data: data)
    }

    /// Makes a frame from its identifier, length and packed data.
    /// - Parameters:
    ///   - identifier: The identifier.
    ///   - count: How many bytes of `data` count, clamped to 0...8.
    ///   - data: The bytes, the first in the lowest byte.
    public init(identifier: CANIdentifier, count: Int, data: UInt64) {
        self.identifier = identifier
        self.count = min(8, max(0, count))
        self.data = self.count == 8 ? data : data & ((1 << (8 * UInt64(self.count))) - 1)
    }

    /// The byte at `index` (0 to ``count`` - 1).
    public subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < count, "CAN frame byte index out of range")
        return UInt8(truncatingIfNeeded: data >> (8 * UInt64(index)))
    }

    /// The data bytes.
    public var bytes: [UInt8] { (0..<count).map { self[$0] } }

    /// Calls `body` with the data bytes, without copying them to the heap.
    public func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        var little = data.littleEndian
        return try Swift.withUnsafeBytes(of: &little) { raw in
            try body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
        }
    }

    /// `09F11213#00163AFF7FFF7FFD`, as can-utils' `cansend` takes it.
    public var description: String {
        let id = String(identifier.rawValue, radix: 16, uppercase: true)
        var text = String(repeating: "0", count: max(0, 8 - id.count)) + id + "#"
        for index in 0..<count {
            let byte = self[index]
            text += String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
        }
        return text
    }

    /// The frame as a Yacht Devices gateway in RAW mode takes it: the identifier in 8 hexadecimal
    /// digits and each byte in 2, spaces between, CR LF at the end (`09F11223 FF 12 34\r\n`); the
    /// gateway sends it as it is (the sender's address is the identifier's) and echoes it with `T`.
    public var yachtDevicesRawLine: String {
        func hex(_ value: UInt64, digits: Int) -> String {
            let text = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        var line = hex(UInt64(identifier.rawValue), digits: 8)
        for index in 0..<count { line += " " + hex(UInt64(self[index]), digits: 2) }
        return line + "\r\n"
    }
}
