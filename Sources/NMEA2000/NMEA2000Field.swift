// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// One field of an NMEA 2000 message: a value, or one of the values at the top of the field's
/// range that say there is none (for fields of 8 bits or more: all ones "not available", one less
/// "out of range", one less again "reserved"; for a signed field the same below its largest value).
public enum NMEA2000Field<Value: Sendable & Hashable>: Sendable, Hashable {
    /// A value, in the API's units (degrees, metres per second, degrees per second).
    case value(Value)
    /// The sender has no value (all ones).
    case notAvailable
    /// The sender's value is out of the field's range: an error.
    case outOfRange
    /// A value the standard reserves.
    case reserved

    /// The value, or `nil`.
    public var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// Maps a raw unsigned field of `bits` bits to its value or its special meaning.
    static func unsigned(_ raw: UInt64, bits: Int, _ transform: (UInt64) -> Value) -> NMEA2000Field {
        let maximum: UInt64 = bits >= 64 ? .max : (1 << UInt64(bits)) - 1
        if bits >= 2, raw == maximum { return .notAvailable }
        if bits >= 4, raw == maximum - 1 { return .outOfRange }
        if bits >= 8, raw == maximum - 2 { return .reserved }
        return .value(transform(raw))
    }

    /// Maps a raw signed field of `bits` bits (two's complement) to its value or its special meaning.
    static func signed(_ raw: Int64, bits: Int, _ transform: (Int64) -> Value) -> NMEA2000Field {
        let maximum: Int64 = (1 << Int64(bits - 1)) - 1
        if raw == maximum { return .notAvailable }
        if raw == maximum - 1 { return .outOfRange }
        if bits >= 8, raw == maximum - 2 { return .reserved }
        return .value(transform(raw))
    }
}
