// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import NMEA2000

/// Which device on an NMEA 2000 bus a source takes its headings from: a bus carries several
/// (an autopilot's fluxgate, a GNSS compass, an IMU), and each is a source of its own.
public enum NMEA2000DeviceSelection: Sendable, Hashable, CustomStringConvertible {
    /// The first device heard sending Vessel Heading (PGN 127250); the source says which.
    case firstHeard
    /// The device at this bus address (0–253). An address may change at power-up: prefer a NAME.
    case address(UInt8)
    /// The device whose Address Claim carries this 64-bit NAME, at whatever address it claims.
    /// Its headings are taken once its claim is heard (at power-up, or when another device asks).
    case name(DeviceName)

    /// Reads `device=`'s value: a number up to 253 is an address, a larger one a NAME, each in
    /// decimal or `0x` hexadecimal (`7`, `0x69`, `0xC0328200113849BA`).
    /// - Returns: `nil` when the text is not such a number.
    public init?(parsing text: some StringProtocol) {
        let value: UInt64?
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            value = UInt64(text.dropFirst(2), radix: 16)
        } else {
            value = UInt64(text, radix: 10)
        }
        guard let value else { return nil }
        if value <= 253 {
            self = .address(UInt8(value))
        } else if value > 255 {
            self = .name(DeviceName(rawValue: value))
        } else {
            return nil  // 254 (no address) and 255 (everyone) are not devices
        }
    }

    /// `device=7` or `device=0xC0328200113849BA`; empty for ``firstHeard``.
    public var description: String {
        switch self {
        case .firstHeard: ""
        case .address(let address): "device=\(address)"
        case .name(let name): "device=\(name)"
        }
    }
}
