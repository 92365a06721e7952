// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts
package import NMEA2000

/// A sender's splitter: lines, UBX frames and lines, Actisense frames, or SocketCAN's records.
package enum FeedSplitter {
    case lines(LineAssembler)
    case ubx(UBXFrameSplitter)
    case actisense(ActisenseFrameSplitter)
    case socketCAN

    /// A splitter for a framing.
    package init(_ framing: NMEAStreamEndpoint.Framing, maximumLineLength: Int) {
        switch framing {
        case .nmea, .ydraw: self = .lines(LineAssembler(maximumLineLength: maximumLineLength))
        case .ubx: self = .ubx(UBXFrameSplitter(maximumLineLength: maximumLineLength))
        case .actisense: self = .actisense(ActisenseFrameSplitter())
        case .socketCAN: self = .socketCAN
        }
    }

    /// Whether part of a piece waits for more bytes.
    package var hasPartial: Bool {
        switch self {
        case .lines(let assembler): assembler.hasPartialLine
        case .ubx(let splitter): splitter.hasPartial
        case .actisense(let splitter): splitter.pendingCount > 0
        case .socketCAN: false
        }
    }

    /// Splits bytes into pieces, handing each to `body`.
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (FeedPiece) -> Void) {
        switch self {
        case .lines(var assembler):
            self = .socketCAN  // the assembler is mutated uniquely, not copied
            assembler.append(bytes) { body(.stream($0)) }
            self = .lines(assembler)
        case .ubx(var splitter):
            self = .socketCAN
            splitter.append(bytes) { body(.stream($0)) }
            self = .ubx(splitter)
        case .actisense(var splitter):
            self = .socketCAN
            splitter.append(bytes) { piece in
                switch piece {
                case .message(let message, _): body(.nmea2000Message(message))
                case .bad(let reason): body(.badFrame(reason: reason))
                case .other: break  // the NGT-1's own messages
                }
            }
            self = .actisense(splitter)
        case .socketCAN:
            SocketCANRecords.forEach(in: bytes) { count in
                body(.badFrame(reason: "the kernel dropped \(count) CAN frame\(count == 1 ? "" : "s") for want of room: headingd fell behind the bus"))
            } _: { frame, time in
                body(.canFrame(frame, receivedAt: time))
            }
        }
    }

    /// Hands over a datagram's last line when it is a whole sentence without its line end.
    package mutating func flushCompleteSentence(_ body: (FeedPiece) -> Void) {
        guard case .lines(var assembler) = self else { return }
        assembler.flushCompleteSentence { body(.stream($0)) }
        self = .lines(assembler)
    }

    mutating func discard() -> Int {
        switch self {
        case .lines(var assembler):
            defer { self = .lines(assembler) }
            return assembler.discard()
        case .ubx(var splitter):
            defer { self = .ubx(splitter) }
            return splitter.discard()
        case .actisense(var splitter):
            defer { self = .actisense(splitter) }
            return splitter.discard()
        case .socketCAN:
            return 0
        }
    }
}
