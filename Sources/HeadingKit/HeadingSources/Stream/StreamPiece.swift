// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import NMEA2000

/// One thing a feed found in its bytes: what ``LineAssembler``, ``UBXFrameSplitter``, an Actisense
/// splitter or a SocketCAN socket hand over.
public enum StreamPiece {
    /// A whole line, without its line end; valid only during the call.
    case line(UnsafeBufferPointer<UInt8>)
    /// A line longer than the limit, with its length in bytes.
    case overlong(length: Int)
    /// The start of a sentence cut short by the next sentence's start, with its length in bytes.
    case fragment(length: Int)
    /// A u-blox UBX frame whose checksum is right: class, ID, length and payload (no sync, no
    /// checksum); valid only during the call.
    case ubxFrame(UnsafeBufferPointer<UInt8>)
    /// A UBX or Actisense frame that was refused, and why (a wrong checksum, a length over the limit).
    case badFrame(reason: String)
    /// A CAN frame from SocketCAN, with the kernel's receive time (seconds since 1970; 0 for none).
    case canFrame(CANFrame, receivedAt: Double)
    /// A whole NMEA 2000 message from an Actisense NGT-1; valid only during the call.
    case nmea2000Message(NMEA2000Message)
}
