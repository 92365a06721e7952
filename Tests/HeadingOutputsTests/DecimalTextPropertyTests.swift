// headingd — HeadingOutputs tests
// SPDX-License-Identifier: Apache-2.0

import HeadingOutputs
import PropertyBased
import Testing

/// `DecimalText` writes what `Double.description` writes, byte for byte: the oracle is the
/// standard library's own shortest-digits printer.
struct DecimalTextPropertyTests {
    private static func check(_ value: Double) {
        #expect(DecimalText.text(value) == value.description, "\(value.bitPattern)")
    }

    /// Short decimals as devices send them (the fast path), with up to 12 decimals so that the
    /// fast path's limit and the hand-over to `description` are both crossed.
    static let whole = Gen.number.string(of: 0...10)
    static let fraction = Gen.number.string(of: 0...12)
    static let sign = Gen.element(of: ["", "-"]).map { $0 ?? "" }

    @Test func shortDecimalsAreWrittenAsDescriptionWritesThem() async {
        await propertyCheck(count: 5000, input: Self.sign, Self.whole, Self.fraction) { sign, whole, fraction in
            let text = sign + (whole.isEmpty ? "0" : whole) + "." + (fraction.isEmpty ? "0" : fraction)
            guard let value = Double(text) else { return }
            Self.check(value)
            Self.check(value * 3.7)  // the same value after arithmetic: usually long digits
            Self.check(value / 1000)
        }
    }

    /// Any bit pattern at all: NaNs, infinities, subnormals, huge and tiny values.
    @Test func anyDoubleIsWrittenAsDescriptionWritesIt() async {
        await propertyCheck(count: 5000, input: Gen.uint64()) { bits in
            Self.check(Double(bitPattern: bits))
        }
    }

    /// Headings as the processor makes them: a heading plus or minus a variation, folded.
    @Test func derivedHeadingsAreWrittenAsDescriptionWritesThem() async {
        await propertyCheck(count: 3000, input: Gen.int(in: 0...35_999), Gen.int(in: -3000...3000)) { hundredths, variation in
            let heading = Double(hundredths) / 100
            let shifted = (heading + Double(variation) / 100).truncatingRemainder(dividingBy: 360)
            Self.check(heading)
            Self.check(shifted)
            Self.check(shifted < 0 ? shifted + 360 : shifted)
        }
    }

    @Test(arguments: [
        0.0, -0.0, 1.0, -1.0, 0.001, 0.000999, 0.0001, 1e-5, 999_999_999.9, 1e9, 1e15, 1e16, 0x1p50, 0x1p53,
        47.77, 359.99, 0.1 + 0.2, 1.0 / 3, 2.5, -1.2, 55.5, 12.5, 123_456_789.123, .pi, .infinity, -.infinity, .nan,
        .leastNonzeroMagnitude, .greatestFiniteMagnitude, 100, 360, 0.05,
    ])
    func edgeCasesAreWrittenAsDescriptionWritesThem(value: Double) {
        Self.check(value)
    }
}
