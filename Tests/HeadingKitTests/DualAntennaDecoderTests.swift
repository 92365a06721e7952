// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

/// The dual-antenna GNSS compasses gpsd 3.22 cannot read: Septentrio's `$PSSN,HRP` and Unicore's
/// `#UNIHEADINGA`, through the one line decoder every transport uses.
struct DualAntennaDecoderTests {
    /// A published AsteRx4 example (its checksum, from a third party, is the cross-check).
    static let septentrio = "$PSSN,HRP,142657.80,061222,152.236,,-0.708,0.084,,0.181,21,2,2.400,E*23"
    /// Unicore logs whose CRCs were computed by Python's zlib (an independent CRC-32:
    /// `~zlib.crc32(body, 0xFFFFFFFF)` is NovAtel's CRC with initial value 0).
    static let unicore = #"#UNIHEADINGA,97,GPS,FINE,2190,365174000,0,0,18,12;SOL_COMPUTED,NARROW_INT,1.4563,245.8120,-0.3410,0.0000,0.1520,0.2850,"999",30,28,28,22,0,3,0x00,0x3f*7CE34F8B"#
    static let unicoreNotComputed = #"#UNIHEADINGA,97,GPS,FINE,2190,365174000,0,0,18,12;INSUFFICIENT_OBS,NARROW_INT,1.4563,245.8120,-0.3410,0.0000,0.1520,0.2850,"999",30,28,28,22,0,3,0x00,0x3f*488CD9EE"#

    private func decodeLine(_ line: String) -> HeadingLineDecoder.Output {
        var decoder = HeadingLineDecoder(path: "test", sourceName: "test", timestamping: .reception)
        return decoder.decode(Array(line.utf8), number: 1, receivedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func septentrioHRPGivesHeadingPitchRollAndAccuracy() throws {
        let report = try NMEADecoder.decode(Array(Self.septentrio.utf8))
        guard case .heading(let reading) = report.content else {
            Issue.record("\(report.content)")
            return
        }
        #expect(reading.trueHeading == 152.236)
        #expect(reading.roll == nil)  // empty: this receiver has no roll
        #expect(reading.pitch == -0.708)
        #expect(reading.accuracy == 0.084)
        #expect(reading.kind == .gnssCompass)
        // 2022-12-06 14:26:57.80 UTC
        #expect(report.time == .date(secondsSince1970: 1_670_336_817.8))
    }

    @Test func septentrioHRPWithoutAttitudeIsNoHeading() throws {
        // Mode 0: no attitude; an empty heading: no heading (never 0°).
        #expect(try NMEADecoder.decode(Array("$PSSN,HRP,142657.80,061222,152.236,,-0.708,0.084,,0.181,21,0,,".utf8)).content == .noHeading)
        #expect(try NMEADecoder.decode(Array("$PSSN,HRP,142657.80,061222,,,,,,,0,2,,".utf8)).content == .noHeading)
        // Another PSSN message is nothing; an HRP cut short is malformed.
        #expect(try NMEADecoder.decode(Array("$PSSN,RBP,1,2,3".utf8)).content == .none)
        #expect(throws: LineDecodingError.self) { try NMEADecoder.decode(Array("$PSSN,HRP,142657.80,061222,152.2".utf8)) }
        #expect(throws: LineDecodingError.self) { try NMEADecoder.decode(Array("$PSSN,HRP,142657.80,061222,400.0,,,,,,21,2,,".utf8)) }
    }

    @Test func unicoreHeadingLogGivesHeadingPitchAndAccuracy() throws {
        let reading = try #require(try UnicoreHeadingDecoder.decode(Array(Self.unicore.utf8)))
        #expect(reading.trueHeading == 245.812)
        #expect(reading.pitch == -0.341)
        #expect(reading.accuracy == 0.152)
        #expect(reading.kind == .gnssCompass)
        #expect(try UnicoreHeadingDecoder.decode(Array(Self.unicoreNotComputed.utf8)) == nil)
    }

    @Test func unicoreHeadingLogWithAWrongCRCIsRefused() {
        var bytes = Array(Self.unicore.utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "2"))!] = UInt8(ascii: "3")  // one digit of the header changed
        #expect(throws: LineDecodingError.self) { try UnicoreHeadingDecoder.decode(bytes) }
        #expect(throws: LineDecodingError.self) { try UnicoreHeadingDecoder.decode(Array(Self.unicore.dropLast(2).utf8)) }
        #expect(throws: LineDecodingError.self) { try UnicoreHeadingDecoder.decode(Array("#UNIHEADINGA,1;SOL_COMPUTED*00000000".utf8)) }
    }

    @Test func theLineDecoderReadsBothAndStillSkipsComments() {
        guard case .heading(let septentrio)? = decodeLine(Self.septentrio).report else {
            Issue.record("no heading from HRP")
            return
        }
        #expect(septentrio.trueHeading == 152.236)
        guard case .heading(let unicore)? = decodeLine(Self.unicore).report else {
            Issue.record("no heading from UNIHEADINGA")
            return
        }
        #expect(unicore.trueHeading == 245.812)
        #expect(unicore.headingAccuracy == 0.152)
        #expect(decodeLine("# UNIHEADINGA is a comment here").report == nil)
        #expect(decodeLine("#UNIHEADINGAX,1;2*00").report == nil)  // another log: a comment, as before
        #expect(decodeLine(Self.unicoreNotComputed).report == nil)
        // A bad CRC is a skipped line, with its reason.
        let bad = decodeLine(String(Self.unicore.dropLast()) + "C")
        #expect(bad.isSkipped)
    }
}
