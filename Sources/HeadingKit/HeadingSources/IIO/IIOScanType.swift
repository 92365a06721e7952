// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import HeadingPorts

/// How one channel lies in a scan of an IIO buffer (`/dev/iio:deviceN`), as its
/// `scan_elements/in_<channel>_type` attribute says: `[be|le]:[s|u]BITS/STORAGE[XREPEAT][>>SHIFT]`,
/// such as `le:s12/16>>4` — little-endian, signed, 12 bits of value in 16 of storage, shifted left
/// by 4 (the kernel's ABI, Documentation/ABI/testing/sysfs-bus-iio). A value is the storage read
/// in its byte order, shifted right, masked to its bits and, when signed, sign-extended.
///
/// Read strictly, as everything from the kernel is: storage of 8, 16, 32 or 64 bits; bits and shift
/// that fit in it; at most ``maximumRepeats`` repeats. Anything else is refused with its reason.
public struct IIOScanType: Sendable, Hashable, CustomStringConvertible {
    /// The most repeats of a channel taken (the kernel's largest today is 4: a quaternion).
    public static let maximumRepeats = 16

    /// Whether the storage is big-endian (`be`) rather than little-endian (`le`).
    public let isBigEndian: Bool
    /// Whether the value is signed (`s`) rather than unsigned (`u`).
    public let isSigned: Bool
    /// The bits of the value.
    public let bits: Int
    /// The bits of its storage: 8, 16, 32 or 64.
    public let storageBits: Int
    /// How many values the channel holds one after the other (1 without an `X`).
    public let repeats: Int
    /// How far the value is shifted left in its storage.
    public let shift: Int

    /// Reads a `_type` attribute's content (a trailing newline allowed).
    /// - Parameter bytes: The attribute's content.
    /// - Throws: ``IIOScanError`` naming what is wrong.
    public init(parsing bytes: some Collection<UInt8>) throws(IIOScanError) {
        var text = Array(bytes.prefix(65))
        while let last = text.last, last == 0x0A || last == 0x20 { text.removeLast() }
        let shown = LogText.printable(String(decoding: text, as: UTF8.self), limit: 40)
        func refuse(_ why: String) -> IIOScanError { IIOScanError(reason: "scan type '\(shown)': \(why); expected [be|le]:[s|u]BITS/STORAGE[XREPEAT][>>SHIFT], as le:s12/16>>4") }
        guard bytes.count <= 64, text.count >= 8 else { throw refuse("not one") }
        switch (text[0], text[1], text[2]) {
        case (UInt8(ascii: "l"), UInt8(ascii: "e"), UInt8(ascii: ":")): isBigEndian = false
        case (UInt8(ascii: "b"), UInt8(ascii: "e"), UInt8(ascii: ":")): isBigEndian = true
        default: throw refuse("no byte order (le: or be:)")
        }
        switch text[3] {
        case UInt8(ascii: "s"): isSigned = true
        case UInt8(ascii: "u"): isSigned = false
        default: throw refuse("no sign (s or u)")
        }
        var index = 4
        /// A decimal number of at most three digits at `index`.
        func number() -> Int? {
            var value = 0
            var digits = 0
            while index < text.count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9"), digits < 3 {
                value = value * 10 + Int(text[index] - UInt8(ascii: "0"))
                index += 1
                digits += 1
            }
            return digits == 0 || (index < text.count && text[index] >= UInt8(ascii: "0") && text[index] <= UInt8(ascii: "9")) ? nil : value
        }
        guard let bits = number() else { throw refuse("no number of bits") }
        guard index < text.count, text[index] == UInt8(ascii: "/") else { throw refuse("no '/' after the bits") }
        index += 1
        guard let storageBits = number() else { throw refuse("no storage size") }
        var repeats = 1
        if index < text.count, text[index] == UInt8(ascii: "X") {
            index += 1
            guard let count = number() else { throw refuse("no count after X") }
            repeats = count
        }
        var shift = 0
        if index < text.count {
            guard index + 1 < text.count, text[index] == UInt8(ascii: ">"), text[index + 1] == UInt8(ascii: ">") else {
                throw refuse("something after the storage size that is not >>SHIFT")
            }
            index += 2
            guard let value = number() else { throw refuse("no number after >>") }
            shift = value
        }
        guard index == text.count else { throw refuse("something after the shift") }
        guard [8, 16, 32, 64].contains(storageBits) else { throw refuse("storage of \(storageBits) bits (8, 16, 32 or 64 are read)") }
        guard bits >= 1, bits + shift <= storageBits else { throw refuse("\(bits) bits shifted by \(shift) do not fit in \(storageBits)") }
        guard repeats >= 1, repeats <= Self.maximumRepeats else { throw refuse("\(repeats) repeats (1 to \(Self.maximumRepeats) are read)") }
        self.bits = bits
        self.storageBits = storageBits
        self.repeats = repeats
        self.shift = shift
    }

    /// The bytes one repeat takes.
    public var storageBytes: Int { storageBits / 8 }

    /// The bytes the channel takes in a scan, all its repeats.
    public var length: Int { storageBytes * repeats }

    /// The attribute's form, as the kernel writes it.
    public var description: String {
        (isBigEndian ? "be:" : "le:") + (isSigned ? "s" : "u") + "\(bits)/\(storageBits)" + (repeats > 1 ? "X\(repeats)" : "") + ">>\(shift)"
    }

    /// The channel's values in a scan.
    /// - Parameters:
    ///   - scan: The scan's bytes.
    ///   - offset: Where the channel starts in it.
    /// - Returns: One value a repeat, or `nil` when the scan is too short.
    public func values(in scan: some RandomAccessCollection<UInt8>, at offset: Int) -> [Int64]? {
        guard offset >= 0, scan.count - offset >= length else { return nil }
        var values: [Int64] = []
        values.reserveCapacity(repeats)
        let start = scan.index(scan.startIndex, offsetBy: offset)
        for repeatIndex in 0..<repeats {
            var storage: UInt64 = 0
            for byteIndex in 0..<storageBytes {
                let byte = UInt64(scan[scan.index(start, offsetBy: repeatIndex * storageBytes + byteIndex)])
                let position = isBigEndian ? storageBytes - 1 - byteIndex : byteIndex
                storage |= byte << (8 * UInt64(position))
            }
            let shifted = storage >> UInt64(shift)
            let masked = bits == 64 ? shifted : shifted & ((1 << UInt64(bits)) - 1)
            if isSigned, bits < 64, masked & (1 << UInt64(bits - 1)) != 0 {
                values.append(Int64(bitPattern: masked | ~((1 << UInt64(bits)) - 1)))
            } else {
                values.append(Int64(bitPattern: masked))
            }
        }
        return values
    }
}
