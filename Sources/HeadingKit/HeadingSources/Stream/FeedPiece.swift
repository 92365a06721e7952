// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

package import NMEA2000

/// One thing a feed hands its sources: a ``StreamPiece`` of a byte stream, or what an NMEA 2000
/// transport gives (kept apart from the public ``StreamPiece``, whose cases a library user may
/// switch over).
package enum FeedPiece {
    /// A line, a UBX frame, or a refusal, from a byte stream.
    case stream(StreamPiece)
    /// A CAN frame from SocketCAN, with the kernel's receive time (seconds since 1970; 0 for none).
    case canFrame(CANFrame, receivedAt: Double)
    /// A whole NMEA 2000 message from an Actisense NGT-1; valid only during the call.
    case nmea2000Message(NMEA2000Message)
    /// An Actisense frame refused, and why.
    case badFrame(reason: String)
}
