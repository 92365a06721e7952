// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// One thing a feed found in its bytes: what ``LineAssembler`` and ``UBXFrameSplitter`` hand over.
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
    /// A UBX frame that was refused, and why (a wrong checksum, a length over the limit).
    case badFrame(reason: String)
}
