// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// A 29-bit CAN identifier as NMEA 2000 (ISO 11783, J1939) lays it out: priority, parameter group
/// number (PGN), source address and, for a PGN sent to one device, its destination.
///
/// ```
/// bits 28-26 priority | 25 extended data page | 24 data page | 23-16 PDU format | 15-8 PDU specific | 7-0 source
/// ```
/// A PDU format below 240 (PDU1) is addressed: its PDU specific byte is the destination and not
/// part of the PGN. From 240 (PDU2) it is broadcast: the PDU specific byte is part of the PGN and
/// the destination is 255 (every device).
public struct CANIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The 29 bits, as on the bus (without the extended-frame flag).
    public let rawValue: UInt32

    /// Reads an identifier; bits above the 29th (the extended, remote and error flags of Linux's
    /// `can_id`) are ignored.
    /// - Parameter rawValue: The identifier.
    public init(_ rawValue: UInt32) {
        self.rawValue = rawValue & 0x1FFF_FFFF
    }

    /// Makes an identifier from its parts.
    /// - Parameters:
    ///   - priority: 0 (highest) to 7; masked to 3 bits.
    ///   - pgn: The parameter group number; masked to 18 bits.
    ///   - source: The sender's address.
    ///   - destination: For a PDU1 PGN, the address it is sent to (255 for all); ignored for PDU2.
    public init(priority: UInt8, pgn: UInt32, source: UInt8, destination: UInt8 = 255) {
        let pgn = pgn & 0x3FFFF
        var value = UInt32(priority & 7) << 26 | pgn << 8 | UInt32(source)
        if (pgn >> 8) & 0xFF < 240 { value = (value & ~0xFF00) | UInt32(destination) << 8 }
        self.init(value)
    }

    /// 0 (highest) to 7.
    public var priority: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 26) & 7 }
    /// The sender's address (0–251 claimed, 254 a device without one).
    public var source: UInt8 { UInt8(truncatingIfNeeded: rawValue) }
    /// The PDU format byte: below 240 the message is addressed (PDU1).
    public var pduFormat: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 16) }
    /// Whether the message is addressed to one device (PDU1).
    public var isAddressed: Bool { pduFormat < 240 }
    /// The parameter group number: 127250 for Vessel Heading.
    public var pgn: UInt32 {
        let pgn = (rawValue >> 8) & 0x3FFFF
        return isAddressed ? pgn & 0x3FF00 : pgn
    }
    /// The receiver: its address for an addressed message, 255 (every device) for a broadcast.
    public var destination: UInt8 { isAddressed ? UInt8(truncatingIfNeeded: rawValue >> 8) : 255 }

    /// `09F11213 (PGN 127250, priority 2, from 19 to 255)`.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 8 - hex.count)) + hex
            + " (PGN \(pgn), priority \(priority), from \(source) to \(destination))"
    }
}
