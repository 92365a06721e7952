// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 59904, ISO Request: one node (or every node, to 255) is asked to send a PGN — the way a
/// plotter learns who is on the bus (60928, then 126996, 126998, 126464).
public struct ISORequest: Sendable, Hashable {
    /// The PGN asked for.
    public var pgn: UInt32

    /// A request for `pgn`.
    public init(pgn: UInt32) { self.pgn = pgn & 0x3FFFF }

    /// Decodes a request; `nil` for another PGN or a payload shorter than 3 bytes.
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.isoRequest, let raw = PayloadReader(message.payload).unsigned(at: 0, count: 3) else { return nil }
        pgn = UInt32(truncatingIfNeeded: raw) & 0x3FFFF
    }

    /// The 3 bytes on the bus (priority 6, addressed).
    public var payload: [UInt8] { (0..<3).map { UInt8(truncatingIfNeeded: pgn >> (8 * UInt32($0))) } }

    /// The answer to an addressed request a node cannot give (PGN 59392, priority 6, to the
    /// requester): control 1 (NAK), group function 0xFF, reserved ones, the PGN — 8 bytes, as the
    /// NMEA2000 library sends it.
    public var negativeAcknowledgement: [UInt8] {
        [1, 0xFF, 0xFF, 0xFF, 0xFF] + payload
    }
}
