// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// One whole NMEA 2000 message: a single frame's data, or a fast-packet series reassembled
/// (``FastPacketAssembler``), or a message a gateway reassembled (an Actisense NGT-1, canboat's CSV).
///
/// Its payload is valid only during the call that hands it over: copy it (`Array(message.payload)`)
/// to keep it.
public struct NMEA2000Message {
    /// 0 (highest) to 7.
    public let priority: UInt8
    /// The parameter group number.
    public let pgn: UInt32
    /// The sender's address.
    public let source: UInt8
    /// The receiver's address; 255 for every device.
    public let destination: UInt8
    /// The data bytes; valid only during the call.
    public let payload: UnsafeBufferPointer<UInt8>

    /// Makes a message.
    /// - Parameters:
    ///   - priority: 0 to 7.
    ///   - pgn: The parameter group number.
    ///   - source: The sender's address.
    ///   - destination: The receiver's address; 255 for every device.
    ///   - payload: The data bytes (not copied).
    public init(priority: UInt8, pgn: UInt32, source: UInt8, destination: UInt8 = 255, payload: UnsafeBufferPointer<UInt8>) {
        self.priority = priority
        self.pgn = pgn
        self.source = source
        self.destination = destination
        self.payload = payload
    }
}
