// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// Writes little-endian fields into a message's payload, the way a certified node does (the
/// NMEA2000 library's `SetBuf…Double`): a value rounded to the field's resolution, "not available"
/// (all ones; for a signed field its largest value) when there is none, and "out of range" (one
/// less) for a value the field cannot hold — never a wrapped number.
struct PayloadWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Appends `count` bytes of `value`, least significant first.
    mutating func unsigned(_ value: UInt64, count: Int) {
        for index in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    /// Appends one byte.
    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// Appends an unsigned field of `count` bytes: `field`'s value divided by `scale`, rounded.
    mutating func unsignedField(_ field: NMEA2000Field<Double>, count: Int, scale: Double) {
        let maximum: UInt64 = count >= 8 ? .max : (1 << UInt64(8 * count)) - 1
        unsigned(Self.raw(field, scale: scale, lowest: 0, highest: maximum), count: count)
    }

    /// Appends a signed field of `count` bytes (two's complement): `field`'s value divided by `scale`, rounded.
    mutating func signedField(_ field: NMEA2000Field<Double>, count: Int, scale: Double) {
        let maximum = (Int64(1) << Int64(8 * count - 1)) - 1
        unsigned(UInt64(bitPattern: Self.raw(field, scale: scale, lowest: -maximum, highest: maximum)), count: count)
    }

    /// The raw number a field from `lowest` to `highest` holds for `field`: the three values at the
    /// top say not available, out of range and reserved, so a value must stay below them; one the
    /// field cannot hold (or not finite) is out of range.
    private static func raw<Raw: FixedWidthInteger>(_ field: NMEA2000Field<Double>, scale: Double, lowest: Raw, highest: Raw) -> Raw {
        switch field {
        case .notAvailable: return highest
        case .outOfRange: return highest - 1
        case .reserved: return highest - 2
        case .value(let value):
            let scaled = (value / scale).rounded()
            return scaled.isFinite && scaled >= Double(lowest) && scaled < Double(highest - 2) ? Raw(scaled) : highest - 1
        }
    }

    /// Appends an unsigned angle of 1/10000 radian (a heading) from degrees in `[0, 360)`: one that
    /// rounds to 2π is 0 (the same direction; a reader takes 2π as out of range); one off the
    /// circle is out of range.
    mutating func angleField(_ field: NMEA2000Field<Double>) {
        guard case .value(let degrees) = field else { return unsignedField(field, count: 2, scale: tenThousandthRadian) }
        guard degrees >= 0, degrees < 360 else { return unsignedField(.outOfRange, count: 2, scale: tenThousandthRadian) }
        let raw = (degrees / tenThousandthRadian).rounded()
        unsigned(raw * tenThousandthRadian >= 360 ? 0 : UInt64(raw), count: 2)
    }

    /// Appends `count` bytes of `text` as a fixed-length field: ASCII, cut at `count`, padded with
    /// 0xFF (as canboat and the NMEA2000 library pad 126996's strings).
    mutating func text(_ text: String, count: Int) {
        var written = 0
        for byte in text.utf8 where written < count {
            bytes.append(byte >= 0x20 && byte < 0x7F ? byte : UInt8(ascii: "?"))
            written += 1
        }
        bytes.append(contentsOf: repeatElement(0xFF, count: count - written))
    }
}
