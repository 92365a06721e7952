// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Testing

/// The buffered interface's scan: each channel's type as the kernel writes it, and where it lies.
struct IIOScanLayoutTests {
    static func type(_ text: String) throws(IIOScanError) -> IIOScanType { try IIOScanType(parsing: Array(text.utf8)) }

    @Test func theKernelsFormsAreRead() throws {
        let example = try Self.type("le:s12/16>>4\n")
        #expect(!example.isBigEndian && example.isSigned && example.bits == 12 && example.storageBits == 16 && example.shift == 4 && example.repeats == 1)
        #expect(example.description == "le:s12/16>>4")
        let big = try Self.type("be:u16/16>>0")
        #expect(big.isBigEndian && !big.isSigned)
        let repeated = try Self.type("le:s16/16X4>>0")
        #expect(repeated.repeats == 4 && repeated.length == 8)
        #expect(try Self.type("le:s64/64>>0").length == 8)
        #expect(try Self.type("le:s16/16").shift == 0)
    }

    @Test(arguments: [
        ("", "not one"), ("xx:s12/16>>4", "byte order"), ("le:x12/16>>4", "sign"), ("le:s/16>>4", "bits"),
        ("le:s12-16>>4", "'/'"), ("le:s12/>>4", "storage size"), ("le:s12/24>>0", "storage of 24"), ("le:s17/16>>0", "do not fit"),
        ("le:s12/16>>5", "do not fit"), ("le:s0/16>>0", "do not fit"), ("le:s16/16X0>>0", "0 repeats"), ("le:s16/16X99>>0", "99 repeats"),
        ("le:s16/16>4", ">>SHIFT"), ("le:s16/16>>", "after >>"), ("le:s16/16>>0 junk", "after the shift"), ("le:s1234/16>>0", "bits"),
        ("le:s12/16>>4\u{0}", "after the shift"),
    ])
    func anythingElseIsRefusedWithItsReason(_ text: String, _ reason: String) {
        #expect(throws: IIOScanError.self) { try Self.type(text) }
        do { _ = try Self.type(text) } catch { #expect(error.reason.contains(reason), "\(error.reason)") }
    }

    @Test func valuesAreShiftedMaskedAndSignExtended() throws {
        // le:s12/16>>4: -3 in 12 bits is 0xFFD, stored as 0xFFD0 with junk in the low 4 bits.
        #expect(try Self.type("le:s12/16>>4").values(in: [0xD7, 0xFF], at: 0) == [-3])
        #expect(try Self.type("le:u12/16>>4").values(in: [0xD7, 0xFF], at: 0) == [0xFFD])
        #expect(try Self.type("be:s16/16>>0").values(in: [0xFF, 0x38], at: 0) == [-200])
        #expect(try Self.type("le:s16/16>>0").values(in: [0x38, 0xFF], at: 0) == [-200])
        #expect(try Self.type("le:s64/64>>0").values(in: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], at: 0) == [-1])
        #expect(try Self.type("le:u8/8X2>>0").values(in: [0, 7, 9], at: 1) == [7, 9])
        #expect(try Self.type("le:s16/16>>0").values(in: [1], at: 0) == nil, "a short scan")
    }

    @Test func threeAxesAndATimestampAreSixteenBytesWithTheTimestampAtEight() throws {
        let axis = try Self.type("le:s16/16>>0")
        let layout = try IIOScanLayout([
            ("in_timestamp", 3, try Self.type("le:s64/64>>0")), ("in_magn_y", 1, axis), ("in_magn_x", 0, axis), ("in_magn_z", 2, axis),
        ])
        #expect(layout.channels.map(\.name) == ["in_magn_x", "in_magn_y", "in_magn_z", "in_timestamp"])
        #expect(layout.channels.map(\.offset) == [0, 2, 4, 8])
        #expect(layout.scanSize == 16)
        let scan: [UInt8] = [0x2C, 0x01, 0x64, 0x00, 0x38, 0xFF, 0, 0, 0x00, 0xCA, 0x9A, 0x3B, 0, 0, 0, 0]
        #expect(layout.values(in: scan) == [[300], [100], [-200], [1_000_000_000]])
        #expect(layout.values(in: Array(scan.dropLast())) == nil)
        // An 8-bit channel after a 16-bit one is not padded; a 32-bit one after it is; the scan ends aligned to the longest.
        let mixed = try IIOScanLayout([("a", 0, axis), ("b", 1, try Self.type("le:u8/8>>0")), ("c", 2, try Self.type("be:s32/32>>0"))])
        #expect(mixed.channels.map(\.offset) == [0, 2, 4] && mixed.scanSize == 8)
    }

    @Test func aLayoutThatCannotBeKnownIsRefused() throws {
        let axis = try Self.type("le:s16/16>>0")
        #expect(throws: IIOScanError.self) { try IIOScanLayout([]) }
        #expect(throws: IIOScanError.self) { try IIOScanLayout([("a", 0, axis), ("b", 0, axis)]) }
        #expect(throws: IIOScanError.self) { try IIOScanLayout([("q", 0, try Self.type("le:s16/16X3>>0"))]) }
        #expect(throws: IIOScanError.self) { try IIOScanLayout([("a", -1, axis)]) }
    }
}
