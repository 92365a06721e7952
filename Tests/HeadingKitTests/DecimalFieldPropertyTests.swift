// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import PropertyBased
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// NMEA number fields are read without Foundation or `strtod` for plain decimals; `strtod`, the
/// C library's correctly rounded reader, is the oracle: every text the field grammar accepts
/// must give strtod's value to the bit, and every text it refuses must be refused.
struct DecimalFieldPropertyTests {
    /// The field grammar, written out independently: an optional sign, then digits with at most
    /// one decimal point and at least one digit; 20 characters at most.
    private static func isPlainDecimal(_ text: String) -> Bool {
        var body = Substring(text)
        if let first = body.first, first == "+" || first == "-" { body = body.dropFirst() }
        return text.count <= 20 && body.contains(where: \.isNumber) && body.filter { $0 == "." }.count <= 1
            && body.allSatisfy { $0 == "." || ("0"..."9").contains($0) }
    }

    /// strtod's value for the whole of `text`, or `nil` when it stops early.
    private static func strtodValue(_ text: String) -> Double? {
        text.withCString { start in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(start, &end)
            return end.map { $0 - UnsafeMutablePointer(mutating: start) } == text.utf8.count ? value : nil
        }
    }

    /// What HeadingKit reads from `text` as an NMEA field: its value, or `nil` when it refuses it.
    private static func fieldValue(_ text: String) throws -> Double? {
        let sentence = try NMEASentence("$GPHDT,\(text),T")
        return try? sentence.number(1, "heading")
    }

    private static func check(_ text: String) throws {
        let value = try fieldValue(text)
        if isPlainDecimal(text) {
            let expected = try #require(strtodValue(text), "strtod refused '\(text)'")
            #expect(value?.bitPattern == expected.bitPattern, "'\(text)': \(String(describing: value)), strtod \(expected)")
        } else {
            #expect(value == nil, "'\(text)' was read as \(String(describing: value))")
        }
    }

    /// Decimal numbers as devices and fuzzers write them, in four parts: sign, whole digits,
    /// point, fraction digits: `-0`, leading zeros, long fractions (past 15 significant digits,
    /// where the reader hands over to strtod).
    static let sign = Gen.element(of: ["", "-", "+"]).map { $0 ?? "" }
    static let point = Gen.element(of: ["", ".", "."]).map { $0 ?? "" }
    static let digits = Gen.number.string(of: 0...13)

    /// Near misses: the same characters with exponents, spaces, doubled points and signs.
    static let junk = Gen.element(of: Array("0123456789.0123456789-+eE xn")).map { $0 ?? "0" }.string(of: 1...22)

    @Test func plainDecimalsGiveStrtodsValueToTheBit() async {
        await propertyCheck(count: 3000, input: Self.sign, Self.digits, Self.point, Self.digits) { sign, whole, point, fraction in
            try Self.check(sign + whole + point + fraction)
        }
    }

    @Test func nearMissesAreRefusedAndValidOnesStillExact() async {
        await propertyCheck(count: 3000, input: Self.junk) { text in
            try Self.check(text)
        }
    }

    @Test(arguments: [
        "0", "-0", "+0", "-0.0", "0.1", "274.07", "359.99999999999999", "-.5", "5.", "000000000000000001",
        "0.30000000000000004", "123456789012345.6", "1234567890123456", "9007199254740993", "0.000000000000000000001",
    ])
    func edgeCasesGiveStrtodsValueToTheBit(text: String) throws {
        try Self.check(text)
    }
}
