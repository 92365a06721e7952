// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

/// Numbers written as Swift writes them (`Double.description`: the shortest digits that read back
/// to the same value), straight into a byte buffer, without making a `String` on the way.
///
/// The values headingd prints are mostly short decimals that came from a sentence (`47.77`,
/// `-1.2`, `55.5`), so there is a fast path for them: the fewest decimals `k ≤ 9` whose integer
/// `n = value × 10ᵏ` (rounded) reads back exactly (`n ÷ 10ᵏ == value`, a correctly rounded division of two
/// exact doubles, which is what reading the text `n` with `k` decimals gives). Fewer decimals means
/// fewer significant digits, and with `n < 2⁵⁰` only one text of `k` decimals can read back to the
/// value, so this is the text `description` chooses. Everything else (exponents, long fractions,
/// zero, magnitudes below 0.001 or from 10⁹ up) goes to `description`. A property test checks the
/// two agree byte for byte over random values of every shape.
public enum DecimalText {
    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]
    private static let integerPowersOfTen: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]

    /// Appends the bytes of `value.description` to `bytes`.
    /// - Parameters:
    ///   - value: Any double; the fast path takes finite values from 0.001 to 10⁹ in magnitude.
    ///   - bytes: Where the text goes.
    public static func append(_ value: Double, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
            let count = write(value, to: buffer.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// The most bytes ``write(_:to:)`` writes: `description` of a double is at most 24.
    public static let maximumLength = 32

    /// Writes the bytes of `value.description` at `start`, which must have room for
    /// ``maximumLength`` bytes.
    /// - Parameters:
    ///   - value: Any double; the fast path takes finite values from 0.001 to 10⁹ in magnitude.
    ///   - start: Where the text goes.
    /// - Returns: How many bytes were written.
    public static func write(_ value: Double, to start: UnsafeMutablePointer<UInt8>) -> Int {
        let magnitude = value.magnitude
        if magnitude >= 1e-3, magnitude < 1e9 {
            // Most values have at most three decimals: try three first, and drop the trailing
            // zeros, which gives the shortest (when `n ÷ 10³` reads back, so does
            // `(n ÷ 10ʲ) ÷ 10³⁻ʲ` for every `10ʲ` dividing `n`: both are the correctly rounded
            // value of one rational), in one division where counting up takes up to four.
            let scaled = magnitude * 1e3 + 0.5
            if scaled < 0x1p50 {
                var units = UInt64(scaled)
                if Double(units) / 1e3 == magnitude {
                    var decimals = 3
                    while decimals > 0, units % 10 == 0 {
                        units /= 10
                        decimals -= 1
                    }
                    return writeFixed(units, decimals: decimals, negative: value < 0, to: start)
                }
            }
            for decimals in 4..<powersOfTen.count {
                let scale = powersOfTen[decimals]
                // Truncating `x + 0.5` rounds to the nearest integer for these positive values
                // without a call to libm's `round`; a candidate that does not read back is
                // refused by the exact check below either way.
                let scaled = magnitude * scale + 0.5
                guard scaled < 0x1p50 else { break }
                let units = UInt64(scaled)
                if Double(units) / scale == magnitude {
                    return writeFixed(units, decimals: decimals, negative: value < 0, to: start)
                }
            }
        }
        var text = value.description
        return text.withUTF8 { utf8 in
            let count = min(utf8.count, maximumLength)
            start.update(from: utf8.baseAddress!, count: count)
            return count
        }
    }

    /// `value.description`, by way of ``append(_:to:)``: for tests and for callers that want a string.
    /// - Parameter value: Any double.
    /// - Returns: The same text as `value.description`.
    public static func text(_ value: Double) -> String {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `units ÷ 10^decimals` with exactly `decimals` decimals (`.0` when there are none) at
    /// `start`; returns the length. At most 16 integer digits, a point, 9 decimals and a sign.
    private static func writeFixed(_ units: UInt64, decimals: Int, negative: Bool, to start: UnsafeMutablePointer<UInt8>) -> Int {
        let divisor = integerPowersOfTen[decimals]
        var whole = units / divisor
        var wholeDigits = 1
        while whole >= 10 {
            whole /= 10
            wholeDigits += 1
        }
        let sign = negative ? 1 : 0
        let length = sign + wholeDigits + 1 + max(decimals, 1)
        if negative { start[0] = UInt8(ascii: "-") }
        var end = length
        if decimals == 0 {
            end -= 1
            start[end] = UInt8(ascii: "0")
        } else {
            var rest = units % divisor
            for _ in 0..<decimals {
                end -= 1
                start[end] = UInt8(truncatingIfNeeded: 0x30 &+ rest % 10)
                rest /= 10
            }
        }
        end -= 1
        start[end] = UInt8(ascii: ".")
        var rest = units / divisor
        repeat {
            end -= 1
            start[end] = UInt8(truncatingIfNeeded: 0x30 &+ rest % 10)
            rest /= 10
        } while rest > 0
        return length
    }
}
