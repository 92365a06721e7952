// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// PGN 126993, Heartbeat: a node says every 60 s that it is there; a plotter that hears none
/// drops the node from its list.
public struct Heartbeat: Sendable, Hashable {
    /// The interval between heartbeats, in milliseconds (60,000 by default; 1,000–60,000 allowed).
    public var interval: UInt16
    /// Counts heartbeats, 0–252, wrapping.
    public var sequence: UInt8

    /// A heartbeat.
    public init(interval: UInt16 = 60_000, sequence: UInt8) {
        self.interval = interval
        self.sequence = sequence
    }

    /// The 8 bytes on the bus (priority 7, broadcast). The interval is written in milliseconds, as
    /// the NMEA2000 library writes it (60 s is `60 EA`) — canboat's C tools write hundredths
    /// (`70 17`), and canboat's database reads milliseconds: the library's is the certified
    /// lineage, and what canboat decodes as 60 s. The rest is ones (no controller state said).
    public var payload: [UInt8] {
        [UInt8(truncatingIfNeeded: interval), UInt8(truncatingIfNeeded: interval >> 8), sequence % 253, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    }
}
