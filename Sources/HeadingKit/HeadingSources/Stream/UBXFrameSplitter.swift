// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Splits a u-blox receiver's bytes, where UBX frames and NMEA 0183 lines arrive interleaved on one
/// port, into checked frames and lines.
///
/// A frame is `0xB5 0x62`, class, ID, a little-endian length, the payload and a two-byte Fletcher
/// checksum over class to payload. A frame longer than ``maximumPayload`` or with a wrong checksum
/// is refused (``StreamPiece/badFrame(reason:)``) and the bytes after it are read afresh; bytes
/// outside frames go to a ``LineAssembler``. Memory stays bounded whatever arrives.
public struct UBXFrameSplitter: Sendable {
    /// The longest payload accepted: NAV-RELPOSNED's is 64 bytes, the longest messages a few hundred.
    public static let maximumPayload = 1024

    private var lines: LineAssembler
    /// The frame being read: class, ID, length and payload, then the checksum.
    private var frame: [UInt8] = []
    private var isInFrame = false
    /// The last byte was a first sync byte (0xB5), at the end of a read.
    private var sawSync = false

    /// - Parameter maximumLineLength: The longest NMEA line kept.
    public init(maximumLineLength: Int) {
        lines = LineAssembler(maximumLineLength: maximumLineLength)
        frame.reserveCapacity(Self.maximumPayload + 6)
    }

    /// Whether part of a line or a frame is waiting for the rest.
    public var hasPartial: Bool { lines.hasPartialLine || isInFrame }

    /// Drops what is partial, as when the connection ended.
    /// - Returns: How many bytes were dropped.
    public mutating func discard() -> Int {
        defer {
            frame.removeAll(keepingCapacity: true)
            isInFrame = false
            sawSync = false
        }
        return lines.discard() + (isInFrame ? frame.count + 2 : 0)
    }

    /// Hands each complete frame and line to `body`, in order.
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (StreamPiece) -> Void) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if isInFrame {
                frame.append(byte)
                index += 1
                if frame.count == 4 {
                    let length = Int(frame[2]) | Int(frame[3]) << 8
                    if length > Self.maximumPayload {
                        body(.badFrame(reason: "UBX frame of class 0x\(String(frame[0], radix: 16)) claims \(length) bytes, more than \(Self.maximumPayload)"))
                        endFrame()
                        runStart = index
                    }
                } else if frame.count >= 4, frame.count == 4 + (Int(frame[2]) | Int(frame[3]) << 8) + 2 {
                    finishFrame(body)
                    runStart = index
                }
                continue
            }
            if sawSync {
                sawSync = false
                if byte == 0x62 {
                    isInFrame = true
                    index += 1
                    runStart = index
                    continue
                }
            }
            if byte == 0xB5 {
                if index > runStart { lines.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]), body) }
                sawSync = true
                index += 1
                runStart = index
                continue
            }
            index += 1
        }
        if !isInFrame, runStart < bytes.count { lines.append(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]), body) }
    }

    private mutating func finishFrame(_ body: (StreamPiece) -> Void) {
        defer { endFrame() }
        let content = frame.count - 2
        var a: UInt8 = 0, b: UInt8 = 0
        for byte in frame[..<content] {
            a &+= byte
            b &+= a
        }
        guard a == frame[content], b == frame[content + 1] else {
            body(.badFrame(reason: "UBX frame of class 0x\(String(frame[0], radix: 16)) ID 0x\(String(frame[1], radix: 16)) has a wrong checksum"))
            return
        }
        frame.withUnsafeBufferPointer { body(.ubxFrame(UnsafeBufferPointer(rebasing: $0[..<content]))) }
    }

    private mutating func endFrame() {
        frame.removeAll(keepingCapacity: true)
        isInFrame = false
    }
}
