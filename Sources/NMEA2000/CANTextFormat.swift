// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// The text forms a CAN bus is recorded and relayed in, one frame (or message) a line.
public enum CANTextFormat: String, Sendable, Hashable, CaseIterable {
    /// can-utils' `candump -L` log: `(1745600961.335462) can0 09F11213#00163AFF7FFF7FFD`.
    case candumpLog = "candump -L"
    /// can-utils' `candump` screen text: `  can0  09F11213   [8]  00 16 3A FF 7F FF 7F FD`, optionally
    /// after `(SECONDS.MICROSECONDS)` (`-t a`), or the older `<0x09f11213> [8] 00 16 …`.
    case candump
    /// Yacht Devices' RAW (YDWG-02, YDEN-02, YDNU-02): `00:29:58.627 R 09F11213 00 16 3A FF 7F FF 7F FD`;
    /// a time of day only.
    case yachtDevicesRaw = "YD RAW"
    /// canboat's CSV (Actisense N2K ASCII as `actisense-serial` writes it), one whole message a line:
    /// `2016-02-28T19:57:02.364Z,2,127250,7,255,8,ff,10,3b,ff,7f,ce,f5,fc`.
    case canboat

    /// Which form a line is in, from its first bytes; `nil` for none (an NMEA 0183 sentence, say).
    /// Leading spaces must already be removed.
    public static func of(_ line: UnsafeBufferPointer<UInt8>) -> CANTextFormat? {
        guard let first = line.first else { return nil }
        switch first {
        case UInt8(ascii: "("):
            // `(time) iface ID#data` is a log; `(time)  iface  ID   [n]  …` screen text.
            return line.contains(UInt8(ascii: "#")) ? .candumpLog : (line.contains(UInt8(ascii: "[")) ? .candump : nil)
        case UInt8(ascii: "<"):
            return .candump
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            if line.count >= 3, line[2] == UInt8(ascii: ":") { return .yachtDevicesRaw }
            if line.count >= 5, line[4] == UInt8(ascii: "-") { return .canboat }
            return nil
        case UInt8(ascii: "a")...UInt8(ascii: "z"):
            // An interface name (can0, vcan0, slcan0), then the identifier and `[n]`.
            return line.contains(UInt8(ascii: "[")) && line.contains(UInt8(ascii: "]")) ? .candump : nil
        default:
            return nil
        }
    }

    /// Which form a line is in (``of(_:)-(UnsafeBufferPointer<UInt8>)`` over any bytes).
    public static func of(_ line: some Collection<UInt8>) -> CANTextFormat? {
        if let format = line.withContiguousStorageIfAvailable({ of($0) }) { return format }
        return Array(line).withUnsafeBufferPointer { of($0) }
    }
}
