// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

/// Numbers written as Swift writes them (`Double.description`: the shortest digits that read back
/// to the same value), straight into a byte buffer, without making a `String` on the way.
///
/// The values headingd prints are mostly short decimals that came from a sentence (`47.77`,
/// `-1.2`, `55.5`), so there is a fast path for them: the fewest decimals `k ≤ 9` whose integer
/// `n = value × 10ᵏ` reads back exactly (`n ÷ 10ᵏ == value`, a correctly rounded division of two
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
        let magnitude = value.magnitude
        if magnitude >= 1e-3, magnitude < 1e9 {
            for decimals in 0..<powersOfTen.count {
                let scale = powersOfTen[decimals]
                let scaled = (magnitude * scale).rounded()
                guard scaled < 0x1p50 else { break }
                if scaled / scale == magnitude {
                    appendFixed(UInt64(scaled), decimals: decimals, negative: value < 0, to: &bytes)
                    return
                }
            }
        }
        var text = value.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `value.description`, by way of ``append(_:to:)``: for tests and for callers that want a string.
    /// - Parameter value: Any double.
    /// - Returns: The same text as `value.description`.
    public static func text(_ value: Double) -> String {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `units ÷ 10^decimals` with exactly `decimals` decimals (`.0` when there are none).
    private static func appendFixed(_ units: UInt64, decimals: Int, negative: Bool, to bytes: inout [UInt8]) {
        let divisor = integerPowersOfTen[decimals]
        let whole = units / divisor
        let fraction = units % divisor
        // At most 16 integer digits, a point, 9 decimals and a sign.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var end = 32
            if decimals == 0 {
                end -= 1
                buffer[end] = UInt8(ascii: "0")
            } else {
                var rest = fraction
                for _ in 0..<decimals {
                    end -= 1
                    buffer[end] = UInt8(truncatingIfNeeded: 0x30 &+ rest % 10)
                    rest /= 10
                }
            }
            end -= 1
            buffer[end] = UInt8(ascii: ".")
            var rest = whole
            repeat {
                end -= 1
                buffer[end] = UInt8(truncatingIfNeeded: 0x30 &+ rest % 10)
                rest /= 10
            } while rest > 0
            if negative {
                end -= 1
                buffer[end] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[end...]))
        }
    }
}
