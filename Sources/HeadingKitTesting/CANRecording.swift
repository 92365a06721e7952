// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import NMEA2000

/// A `candump -L` recording of an NMEA 2000 bus, played to a source through each transport a
/// gateway uses: YD RAW lines, an Actisense NGT-1's frames, or the frames themselves (for
/// `canplayer` on SocketCAN). The same recording through each must give the same headings.
public struct CANRecording: Sendable {
    /// Each frame and its time, seconds since 1970.
    public let frames: [(time: Double, frame: CANFrame)]

    /// Reads a `candump -L` file.
    /// - Throws: When the file cannot be read or a line is not a frame.
    public init(contentsOf path: String) throws {
        var decoder = CANTextLineDecoder()
        var frames: [(time: Double, frame: CANFrame)] = []
        for line in try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline) {
            let bytes = Array(line.utf8)
            let decoded = try bytes.withUnsafeBufferPointer { try decoder.decode($0, format: .candumpLog) }
            guard case .frame(let frame) = decoded.content, case .date(let time)? = decoded.time else { continue }
            frames.append((time, frame))
        }
        self.frames = frames
    }

    /// Makes a recording of frames.
    public init(frames: [(time: Double, frame: CANFrame)]) {
        self.frames = frames
    }

    /// One frame as a Yacht Devices gateway sends it: `HH:MM:SS.mmm R 09F11213 00 16 3A FF 7F FF 7F FD` and CR LF.
    public static func ydRawLine(_ frame: CANFrame, time: Double) -> String {
        let milliseconds = Int((time * 1000).rounded()) % 86_400_000
        let clock = String(
            format: "%02d:%02d:%02d.%03d", milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds / 1000 % 60, milliseconds % 1000
        )
        let id = String(format: "%08X", frame.identifier.rawValue)
        return "\(clock) R \(id) " + frame.bytes.map { String(format: "%02X", $0) }.joined(separator: " ") + "\r\n"
    }

    /// The recording as YD RAW lines.
    public var ydRawLines: [String] { frames.map { Self.ydRawLine($0.frame, time: $0.time) } }

    /// The recording as an NGT-1 sends it: each whole message (fast packets joined) an Actisense frame.
    public var actisenseBytes: [UInt8] {
        var assembler = FastPacketAssembler()
        var bytes: [UInt8] = []
        for (time, frame) in frames {
            assembler.accept(frame) { message in
                bytes += ActisenseFrameSplitter.encodeMessage(
                    priority: message.priority, pgn: message.pgn, source: message.source, destination: message.destination,
                    timestamp: UInt32(truncatingIfNeeded: Int64(time * 1000)), payload: Array(message.payload)
                )
            }
        }
        return bytes
    }

    /// The recording as `candump -L` lines on `interface`, for can-utils' `canplayer`.
    public func candumpLog(interface: String = "vcan0") -> String {
        frames.map { "(" + String(format: "%017.6f", $0.time) + ") \(interface) \($0.frame)" }.joined(separator: "\n") + "\n"
    }

    /// A Vessel Heading frame (PGN 127250): true or magnetic degrees, from `source`.
    public static func vesselHeading(_ degrees: Double, true isTrue: Bool = true, source: UInt8, sequence: UInt8 = 0) -> CANFrame {
        let raw = UInt16(clamping: Int((degrees * .pi / 180 * 10_000).rounded()))
        return CANFrame(
            identifier: CANIdentifier(priority: 2, pgn: 127_250, source: source),
            bytes: [sequence, UInt8(raw & 0xFF), UInt8(raw >> 8), 0xFF, 0x7F, 0xFF, 0x7F, isTrue ? 0xFC : 0xFD]
        )!
    }
}
