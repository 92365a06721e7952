// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 126464, PGN List: the PGNs a node sends or receives, in answer to a request for it (a
/// fast packet, priority 6, to the requester; one message for each list).
public struct PGNList: Sendable, Hashable {
    /// Which list.
    public enum Function: UInt8, Sendable, Hashable {
        /// What the node sends.
        case transmit = 0
        /// What the node receives.
        case receive = 1
    }

    /// Which list.
    public var function: Function
    /// The PGNs.
    public var pgns: [UInt32]

    /// A list.
    public init(function: Function, pgns: [UInt32]) {
        self.function = function
        self.pgns = pgns
    }

    /// The bytes of the message: the function, then each PGN in 3 bytes (at most 74, what a fast packet holds).
    public var payload: [UInt8] {
        var bytes = [function.rawValue]
        for pgn in pgns.prefix((FastPacketAssembler.maximumLength - 1) / 3) {
            bytes += (0..<3).map { UInt8(truncatingIfNeeded: pgn >> (8 * UInt32($0))) }
        }
        return bytes
    }
}
