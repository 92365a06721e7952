// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// Reads little-endian fields from a message's payload, bounds-checked: a field past the end is
/// "not available", never a trap.
struct PayloadReader {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The unsigned integer of `count` bytes at `offset`, or `nil` past the end.
    func unsigned(at offset: Int, count: Int) -> UInt64? {
        guard offset >= 0, count > 0, count <= 8, offset + count <= bytes.count else { return nil }
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        return value
    }

    /// The signed integer of `count` bytes at `offset`, or `nil` past the end.
    func signed(at offset: Int, count: Int) -> Int64? {
        guard let raw = unsigned(at: offset, count: count) else { return nil }
        let shift = UInt64(64 - 8 * count)
        return Int64(bitPattern: raw << shift) >> Int64(shift)
    }

    /// Bits `low..<low+width` of the byte at `offset`, or `nil` past the end.
    func bits(at offset: Int, low: Int, width: Int) -> UInt8? {
        guard offset >= 0, offset < bytes.count else { return nil }
        return (bytes[offset] >> UInt8(low)) & UInt8((1 << width) - 1)
    }

    /// An unsigned field in the API's unit, with its special values.
    func unsignedField(at offset: Int, count: Int, scale: Double) -> NMEA2000Field<Double> {
        guard let raw = unsigned(at: offset, count: count) else { return .notAvailable }
        return .unsigned(raw, bits: 8 * count) { Double($0) * scale }
    }

    /// An unsigned angle of 1/10000 radian (ANGLE_UFIX16: a heading, a course) in degrees: a value
    /// past 2π (up to 375° fits the field) is out of range, never a heading off the circle.
    func angleField(at offset: Int) -> NMEA2000Field<Double> {
        let field = unsignedField(at: offset, count: 2, scale: tenThousandthRadian)
        if let degrees = field.value, degrees >= 360 { return .outOfRange }
        return field
    }

    /// A signed field in the API's unit, with its special values.
    func signedField(at offset: Int, count: Int, scale: Double) -> NMEA2000Field<Double> {
        guard let raw = signed(at: offset, count: count) else { return .notAvailable }
        return .signed(raw, bits: 8 * count) { Double($0) * scale }
    }

    /// A fixed-length text field: ASCII up to the first NUL or 0xFF, trailing spaces and `@` removed.
    func text(at offset: Int, count: Int) -> String? {
        guard offset >= 0, offset < bytes.count else { return nil }
        let end = min(bytes.count, offset + count)
        var characters: [UInt8] = []
        for byte in bytes[offset..<end] {
            if byte == 0 || byte == 0xFF { break }
            characters.append(byte >= 0x20 && byte < 0x7F ? byte : UInt8(ascii: "?"))
        }
        while let last = characters.last, last == 0x20 || last == 0x40 { characters.removeLast() }
        return characters.isEmpty ? nil : String(decoding: characters, as: UTF8.self)
    }
}

/// Radians in 1/10000 to degrees.
let tenThousandthRadian = 0.0001 * 180 / Double.pi
