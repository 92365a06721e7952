// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// The parameter group numbers HeadingKit reads and a node sends, and which come as fast packets.
/// Numbers and layouts from canboat's PGN database (Apache-2.0).
public enum NMEA2000PGN {
    /// ISO Acknowledgement: the NAK a node gives an addressed request it cannot answer, single frame.
    public static let isoAcknowledgement: UInt32 = 59392
    /// ISO Request: asks one node (or every node) to send a PGN, single frame of 3 bytes.
    public static let isoRequest: UInt32 = 59904
    /// ISO Address Claim: a device's 64-bit NAME, single frame.
    public static let addressClaim: UInt32 = 60928
    /// PGN List: the PGNs a node sends (function 0) or receives (1); a fast packet.
    public static let pgnList: UInt32 = 126464
    /// Heartbeat: a node's sign of life, every 60 s.
    public static let heartbeat: UInt32 = 126993
    /// Configuration Information: installation descriptions and the maker's text; a fast packet.
    public static let configurationInformation: UInt32 = 126998
    /// System Time: date and time of day.
    public static let systemTime: UInt32 = 126992
    /// Product Information: model, versions, serial code; a fast packet of 134 bytes.
    public static let productInformation: UInt32 = 126996
    /// Vessel Heading: heading, deviation, variation, reference.
    public static let vesselHeading: UInt32 = 127250
    /// Rate of Turn.
    public static let rateOfTurn: UInt32 = 127251
    /// Attitude: yaw, pitch, roll.
    public static let attitude: UInt32 = 127257
    /// Magnetic Variation, with its source (a chart, a table, a World Magnetic Model edition).
    public static let magneticVariation: UInt32 = 127258
    /// Position, Rapid Update.
    public static let positionRapidUpdate: UInt32 = 129025
    /// COG & SOG, Rapid Update.
    public static let courseAndSpeedRapidUpdate: UInt32 = 129026

    /// Every PGN HeadingKit reads: a SocketCAN source asks the kernel for these only.
    public static let read: [UInt32] = [
        addressClaim, systemTime, productInformation, vesselHeading, rateOfTurn, attitude, magneticVariation,
        positionRapidUpdate, courseAndSpeedRapidUpdate,
    ]

    /// Whether `pgn` is sent as a fast packet (a series of frames) rather than a single frame,
    /// for the PGNs HeadingKit reads and the proprietary fast-packet ranges.
    public static func isFastPacket(_ pgn: UInt32) -> Bool {
        switch pgn {
        case productInformation: true
        case 126720, 130816...131071: true  // proprietary fast-packet ranges
        case 126208, 126464, 126983...126988, 126998, 127233, 127237, 127489, 127496...127498, 127503, 127504, 127506,
            128275, 128520, 129029, 129038...129042, 129044, 129045, 129284, 129285, 129301, 129302, 129538, 129540...129542,
            129545, 129547, 129549, 129551, 129556, 129792...129810, 130060, 130061, 130064...130080, 130320...130324,
            130567, 130569...130580, 130582...130586:
            true
        default: false
        }
    }
}
