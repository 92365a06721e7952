// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// A number as the kernel writes one in a sysfs attribute (`-123`, `0.000244140`, `12\n`), read
/// the same in any locale and refused when it is anything else: no NUL, no letters, no
/// exponent, no second number after the first (`Double("35\u{0}abc9.5")` is 35.0; this is `nil`).
/// What ``IIOHeadingSource`` reads every attribute with; fuzzed in `scripts/fuzz`.
public enum IIOValue {
    /// The longest text taken for one number, in bytes.
    public static let maximumLength = 64

    /// The number in `bytes`, or `nil` when they are not one.
    /// - Parameter bytes: The attribute's content: leading and trailing spaces, tabs and
    ///   newlines are allowed around one decimal number.
    /// - Returns: The number, finite.
    public static func parse(_ bytes: some Collection<UInt8>) -> Double? {
        var start = bytes.startIndex
        var end = bytes.endIndex
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        while start != end, isSpace(bytes[start]) { start = bytes.index(after: start) }
        while start != end {
            let last = bytes.index(start, offsetBy: bytes.distance(from: start, to: end) - 1)
            guard isSpace(bytes[last]) else { break }
            end = last
        }
        let text = bytes[start..<end]
        guard !text.isEmpty, text.count <= maximumLength else { return nil }
        var digits = 0
        var seenPoint = false
        for (offset, byte) in text.enumerated() {
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                guard offset == 0 else { return nil }
            case UInt8(ascii: "."):
                guard !seenPoint else { return nil }
                seenPoint = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
            default:
                return nil
            }
        }
        guard digits > 0, let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// The kernel's mount matrix, `a, b, c; d, e, f; g, h, i` (its first triple the first row).
    /// - Parameter bytes: The attribute's content.
    /// - Returns: The matrix, or `nil` when the text is not nine numbers in three rows.
    public static func matrix(_ bytes: some Collection<UInt8>) -> Matrix3? {
        guard bytes.count <= 512 else { return nil }
        let rows = Array(bytes).split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
        guard rows.count == 3 else { return nil }
        var vectors: [Vector3] = []
        for row in rows {
            let values = row.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { parse($0) }
            guard values.count == 3, let x = values[0], let y = values[1], let z = values[2] else { return nil }
            vectors.append(Vector3(x: x, y: y, z: z))
        }
        return Matrix3(vectors[0], vectors[1], vectors[2])
    }
}
