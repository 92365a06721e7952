// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// Splits the byte stream of an Actisense NGT-1 (USB serial, 115200 baud) into its messages:
/// `DLE STX command length data… checksum DLE ETX`, each DLE in the body doubled, the checksum
/// making the body's bytes sum to 0 (layout from canboat's `actisense-serial`, Apache-2.0).
/// A received NMEA 2000 message (command 0x93) comes whole: the NGT-1 joins fast packets itself.
///
/// Bounded: a frame longer than ``maximumFrameLength`` is dropped, and whatever precedes a
/// `DLE STX` is skipped.
public struct ActisenseFrameSplitter: Sendable {
    /// What the splitter found.
    public enum Piece {
        /// A received NMEA 2000 message, with the gateway's millisecond timestamp; valid during the call.
        case message(NMEA2000Message, timestamp: UInt32)
        /// A frame of another command (the NGT-1's own messages), with a right checksum.
        case other(command: UInt8)
        /// A frame refused, and why (a wrong checksum, a length that does not match, too long).
        case bad(reason: String)
    }

    /// Data Link Escape.
    public static let dle: UInt8 = 0x10
    /// Start of text.
    public static let stx: UInt8 = 0x02
    /// End of text.
    public static let etx: UInt8 = 0x03
    /// The command of a received NMEA 2000 message.
    public static let messageReceived: UInt8 = 0x93
    /// The command of a message sent to the bus.
    public static let messageSend: UInt8 = 0x94
    /// The command of a message to the NGT-1 itself.
    public static let gatewaySend: UInt8 = 0xA1
    /// The longest frame body kept (command, length, up to 255 data bytes, checksum).
    public static let maximumFrameLength = 258

    /// What an NGT-1 must be sent at start, and again every 20 s or so, before it passes every PGN
    /// (it clears its list of PGNs to send on): as canboat's `actisense-serial` does.
    public static let startupMessage: [UInt8] = encode(command: gatewaySend, data: [0x11, 0x02, 0x00])

    private enum Phase: Sendable {
        case outside, outsideAfterEscape, inside, insideAfterEscape
    }

    private var phase = Phase.outside
    private var body: [UInt8] = []

    /// Creates a splitter.
    public init() {
        body.reserveCapacity(Self.maximumFrameLength)
    }

    /// How many bytes of a frame begun and not ended it holds.
    public var pendingCount: Int { body.count }

    /// Forgets a frame begun, and returns how many of its bytes were dropped.
    public mutating func discard() -> Int {
        defer {
            body.removeAll(keepingCapacity: true)
            phase = .outside
        }
        return phase == .inside || phase == .insideAfterEscape ? body.count + 2 : 0
    }

    /// Takes bytes and hands over each frame they complete.
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ deliver: (Piece) -> Void) {
        for byte in bytes {
            switch phase {
            case .outside:
                if byte == Self.dle { phase = .outsideAfterEscape }
            case .outsideAfterEscape:
                if byte == Self.stx {
                    body.removeAll(keepingCapacity: true)
                    phase = .inside
                } else {
                    phase = byte == Self.dle ? .outsideAfterEscape : .outside
                }
            case .inside:
                if byte == Self.dle {
                    phase = .insideAfterEscape
                } else {
                    keep(byte, deliver)
                }
            case .insideAfterEscape:
                switch byte {
                case Self.dle:
                    phase = .inside
                    keep(byte, deliver)
                case Self.etx:
                    phase = .outside
                    finish(deliver)
                case Self.stx:
                    deliver(.bad(reason: "an Actisense frame of \(body.count) bytes was cut short by the next one; dropped"))
                    body.removeAll(keepingCapacity: true)
                    phase = .inside
                default:
                    deliver(.bad(reason: "an Actisense frame holds DLE then 0x\(String(byte, radix: 16)); dropped"))
                    body.removeAll(keepingCapacity: true)
                    phase = .outside
                }
            }
        }
    }

    private mutating func keep(_ byte: UInt8, _ deliver: (Piece) -> Void) {
        guard body.count < Self.maximumFrameLength else {
            deliver(.bad(reason: "an Actisense frame longer than \(Self.maximumFrameLength) bytes; dropped"))
            body.removeAll(keepingCapacity: true)
            phase = .outside
            return
        }
        body.append(byte)
    }

    private mutating func finish(_ deliver: (Piece) -> Void) {
        defer { body.removeAll(keepingCapacity: true) }
        guard body.count >= 3 else {
            deliver(.bad(reason: "an Actisense frame of \(body.count) bytes is too short; dropped"))
            return
        }
        var sum: UInt8 = 0
        for byte in body { sum &+= byte }
        guard sum == 0 else {
            deliver(.bad(reason: "an Actisense frame's checksum is wrong; dropped"))
            return
        }
        let command = body[0]
        let length = Int(body[1])
        guard length == body.count - 3 else {
            deliver(.bad(reason: "an Actisense frame says \(length) bytes but holds \(body.count - 3); dropped"))
            return
        }
        guard command == Self.messageReceived || command == Self.messageSend else {
            deliver(.other(command: command))
            return
        }
        // priority, PGN (3), destination, source, timestamp (4), length, data
        guard length >= 11, Int(body[12]) == length - 11 else {
            deliver(.bad(reason: "an Actisense N2K message's data length does not match its frame; dropped"))
            return
        }
        let pgn = UInt32(body[3]) | UInt32(body[4]) << 8 | UInt32(body[5]) << 16
        let timestamp = UInt32(body[8]) | UInt32(body[9]) << 8 | UInt32(body[10]) << 16 | UInt32(body[11]) << 24
        body.withUnsafeBufferPointer { buffer in
            let payload = UnsafeBufferPointer(rebasing: buffer[13..<(13 + length - 11)])
            let message = NMEA2000Message(priority: body[2] & 7, pgn: pgn & 0x3FFFF, source: body[7], destination: body[6], payload: payload)
            deliver(.message(message, timestamp: timestamp))
        }
    }

    /// One frame as an NGT-1 sends it: DLE STX, the command, the length, the data, the checksum,
    /// DLE ETX, each DLE inside doubled.
    public static func encode(command: UInt8, data: [UInt8]) -> [UInt8] {
        let body = [command, UInt8(truncatingIfNeeded: data.count)] + data
        var sum: UInt8 = 0
        for byte in body { sum &+= byte }
        var frame: [UInt8] = [dle, stx]
        for byte in body + [0 &- sum] {
            if byte == dle { frame.append(dle) }
            frame.append(byte)
        }
        return frame + [dle, etx]
    }

    /// A received NMEA 2000 message as an NGT-1 sends it (command 0x93): what a test plays to a
    /// source.
    public static func encodeMessage(
        priority: UInt8, pgn: UInt32, source: UInt8, destination: UInt8 = 255, timestamp: UInt32 = 0, payload: [UInt8]
    ) -> [UInt8] {
        var data: [UInt8] = [priority, UInt8(truncatingIfNeeded: pgn), UInt8(truncatingIfNeeded: pgn >> 8), UInt8(truncatingIfNeeded: pgn >> 16)]
        data += [destination, source]
        data += [UInt8(truncatingIfNeeded: timestamp), UInt8(truncatingIfNeeded: timestamp >> 8), UInt8(truncatingIfNeeded: timestamp >> 16), UInt8(truncatingIfNeeded: timestamp >> 24)]
        data.append(UInt8(truncatingIfNeeded: payload.count))
        return encode(command: messageReceived, data: data + payload.prefix(255 - 11))
    }

    /// A message for the NGT-1 to send on the bus (command 0x94): priority, PGN, destination, length
    /// and the whole message — the NGT-1 splits fast packets itself and sends under its own
    /// address and NAME (there is no source in the command), and only the PGNs enabled in its
    /// transmit list.
    public static func encodeSend(priority: UInt8, pgn: UInt32, destination: UInt8 = 255, payload: [UInt8]) -> [UInt8] {
        var data: [UInt8] = [priority & 7, UInt8(truncatingIfNeeded: pgn), UInt8(truncatingIfNeeded: pgn >> 8), UInt8(truncatingIfNeeded: pgn >> 16)]
        data += [destination]
        let body = payload.prefix(255 - 6)
        data.append(UInt8(body.count))
        return encode(command: messageSend, data: data + body)
    }
}
