// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// A device's 64-bit ISO NAME, from its Address Claim (PGN 60928): unique on the bus, unlike its
/// address, which may change at power-up. Written as 16 hexadecimal digits (`0xC0328200113849BA`).
public struct DeviceName: Sendable, Hashable, CustomStringConvertible {
    /// The 64 bits, as sent (little-endian on the bus).
    public let rawValue: UInt64

    /// Wraps a NAME.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Decodes an Address Claim; `nil` for another PGN or a payload shorter than 8 bytes.
    public init?(_ message: NMEA2000Message) {
        guard message.pgn == NMEA2000PGN.addressClaim, let raw = PayloadReader(message.payload).unsigned(at: 0, count: 8) else {
            return nil
        }
        rawValue = raw
    }

    /// Makes a NAME from its fields, each masked to its width (ISO 11783-5, as PGN 60928 lays it out).
    /// - Parameters:
    ///   - uniqueNumber: The unit's own number (21 bits): made once, kept, unique among the maker's units.
    ///   - manufacturerCode: The maker's code (11 bits).
    ///   - deviceInstance: The device instance (8 bits).
    ///   - deviceFunction: What it does, read with the class (8 bits): 160 with class 40 is a heading sensor.
    ///   - deviceClass: The device class (7 bits).
    ///   - systemInstance: The system instance (4 bits).
    ///   - industryGroup: The industry group (3 bits): 4 marine.
    ///   - arbitraryAddressCapable: Whether it moves to another address when it loses a contest (every NMEA 2000 node).
    public init(
        uniqueNumber: UInt32, manufacturerCode: UInt16, deviceInstance: UInt8 = 0, deviceFunction: UInt8, deviceClass: UInt8,
        systemInstance: UInt8 = 0, industryGroup: UInt8 = 4, arbitraryAddressCapable: Bool = true
    ) {
        var raw = UInt64(uniqueNumber & 0x1F_FFFF)
        raw |= UInt64(manufacturerCode & 0x7FF) << 21
        raw |= UInt64(deviceInstance) << 32
        raw |= UInt64(deviceFunction) << 40
        raw |= UInt64(deviceClass & 0x7F) << 49
        raw |= UInt64(systemInstance & 0x0F) << 56
        raw |= UInt64(industryGroup & 0x07) << 60
        if arbitraryAddressCapable { raw |= 1 << 63 }
        self.init(rawValue: raw)
    }

    /// Whether the device moves to another address when it loses a contest for one.
    public var isArbitraryAddressCapable: Bool { rawValue >> 63 == 1 }

    /// The 8 bytes of its Address Claim (PGN 60928), least significant first.
    public var payload: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64($0))) } }

    /// The manufacturer's identity number (21 bits).
    public var uniqueNumber: UInt32 { UInt32(truncatingIfNeeded: rawValue) & 0x1F_FFFF }
    /// The manufacturer's code (11 bits): 135 Airmar, 137 Maretron, 229 Garmin, 1857 Simrad…
    public var manufacturerCode: UInt16 { UInt16(truncatingIfNeeded: rawValue >> 21) & 0x7FF }
    /// The device instance (8 bits: lower 3 and upper 5).
    public var deviceInstance: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 32) }
    /// The device function (8 bits), read with the class: 140 with class 60 is a compass.
    public var deviceFunction: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 40) }
    /// The device class (7 bits): 60 navigation, 40 steering.
    public var deviceClass: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 49) & 0x7F }
    /// The system instance (4 bits).
    public var systemInstance: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 56) & 0x0F }
    /// The industry group (3 bits): 4 marine.
    public var industryGroup: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 60) & 0x07 }

    /// The manufacturer's name, for the makers of heading sensors and gateways HeadingKit names
    /// (from canboat's database); `nil` for the others.
    public var manufacturer: String? { Self.manufacturers[manufacturerCode] }

    /// What the device says it does, where HeadingKit names it: `heading sensor`, `attitude`,
    /// `GNSS`, `autopilot`; `nil` for the others.
    public var function: String? {
        switch (deviceClass, deviceFunction) {
        case (40, 160): "heading sensor"
        case (40, 150): "autopilot"
        case (60, 140): "attitude"
        case (60, 145): "GNSS"
        default: nil
        }
    }

    private static let manufacturers: [UInt16: String] = [
        88: "Hemisphere GPS", 135: "Airmar", 137: "Maretron", 140: "Lowrance", 229: "Garmin", 273: "Actisense", 275: "Navico",
        305: "NovAtel", 358: "Victron Energy", 381: "B & G", 404: "ComNav", 421: "Standard Horizon", 437: "Digital Yacht",
        504: "Vesper Marine", 579: "KVH", 717: "Yacht Devices", 999: "Signal K", 1218: "Septentrio", 1851: "Raymarine",
        1855: "Furuno", 1856: "Trimble", 1857: "Simrad",
    ]

    /// `0xC0328200113849BA`.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
