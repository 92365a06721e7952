// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NMEA2000
import Testing

@testable import HeadingKit

/// What `headingd scan` hears on a feed, from the sources' own decoders: sentences by address,
/// headings by talker and kind, NMEA 2000 devices with their PGNs, NAME and model; bounded.
struct FeedSurveyTests {
    static func sentence(_ body: String) -> [UInt8] {
        let sum = body.utf8.reduce(UInt8(0), ^)
        return Array("$\(body)*\(String(format: "%02X", sum))".utf8)
    }

    static func take(_ survey: inout FeedSurvey, _ line: [UInt8]) {
        line.withUnsafeBufferPointer { survey.take(line: $0) }
    }

    @Test func sentencesAreCountedAndTheirHeadingsKindedByTalker() {
        var survey = FeedSurvey()
        for body in ["HEHDT,10.0,T", "HEHDT,10.1,T", "HCHDG,12.0,,,1.0,E", "GPHDT,10.2,T", "GPRMC,120000,A,5047.00,N,00118.00,W,5.0,124.0,271126,1.2,W", "PASHR,120000.00,10.5,T,1.0,2.0,0.1,0.1,0.1,0.2,1,1"] {
            Self.take(&survey, Self.sentence(body))
        }
        Self.take(&survey, Array("$HEHDT,10.0,T*00".utf8))  // a wrong checksum
        Self.take(&survey, Array("\u{7F}\u{1}garbage at a wrong rate".utf8))
        #expect(survey.sentences == ["HEHDT": 2, "HCHDG": 1, "GPHDT": 1, "GPRMC": 1, "PASHR": 1])
        #expect(survey.unreadable == 2 && survey.checksummed == 6)
        let kinds = Dictionary(uniqueKeysWithValues: survey.headings.map { ("\($0.key.talker ?? $0.key.proprietary ?? "")\($0.key.type)", $0.key.kind) })
        #expect(kinds["HEHDT"] == .inertial && kinds["HCHDG"] == .compass && kinds["GPHDT"] == .gnssCompass && kinds["GPRMC"] == .courseOverGround)
        #expect(kinds["PASHRPASHR"] == .inertial, "\(kinds)")
        #expect(survey.headings.first { $0.key.talker == "HC" }?.key.isTrue == false)
    }

    @Test func aFloodOfAddressesIsCountedNotKept() {
        var survey = FeedSurvey()
        for index in 0..<500 {
            let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            Self.take(&survey, Self.sentence("X\(letters[index % 26])\(letters[(index / 26) % 26])Q,1"))
        }
        #expect(survey.sentences.count == FeedSurvey.maximumAddresses)
        #expect(survey.sentences.values.reduce(0, +) + survey.otherSentences == 500)
    }

    @Test func aBusIsItsDevicesWithTheirNameModelAndHeadings() throws {
        var survey = FeedSurvey()
        // Address 7 claims, sends its model (a fast packet) and a magnetic heading; address 9 a true one, with no claim.
        let name = DeviceName(uniqueNumber: 1234, manufacturerCode: 137, deviceFunction: 140, deviceClass: 60)
        name.payload.withUnsafeBufferPointer { survey.take(message: NMEA2000Message(priority: 6, pgn: NMEA2000PGN.addressClaim, source: 7, payload: $0)) }
        let product = ProductInformation(databaseVersion: 2.1, productCode: 1, model: "H2183\u{1B}[2J Compass", softwareVersion: "1", modelVersion: "1", serialCode: "1")
        for bytes in try #require(FastPacketSplitter.frames(of: product.payload, sequence: 0)) {
            survey.take(frame: try #require(CANFrame(identifier: CANIdentifier(priority: 6, pgn: NMEA2000PGN.productInformation, source: 7), bytes: bytes)))
        }
        let magnetic = VesselHeading(sequence: 0, heading: .value(1.0), deviation: .notAvailable, variation: .notAvailable, reference: .magnetic)
        magnetic.payload.withUnsafeBufferPointer { survey.take(message: NMEA2000Message(priority: 2, pgn: NMEA2000PGN.vesselHeading, source: 7, payload: $0)) }
        let truth = VesselHeading(sequence: 0, heading: .value(1.0), deviation: .notAvailable, variation: .notAvailable, reference: .true)
        truth.payload.withUnsafeBufferPointer { survey.take(message: NMEA2000Message(priority: 2, pgn: NMEA2000PGN.vesselHeading, source: 9, payload: $0)) }
        let seven = try #require(survey.devices[7])
        #expect(seven.name == name && seven.magneticHeadings == 1 && seven.trueHeadings == 0)
        #expect(seven.model?.hasPrefix("H2183") == true && seven.model?.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) } == true,
                "a peer's escape sequence never reaches a terminal: \(seven.model ?? "")")
        #expect(seven.pgns[NMEA2000PGN.productInformation] == 1 && seven.pgns[NMEA2000PGN.addressClaim] == 1)
        #expect(survey.devices[9]?.trueHeadings == 1 && survey.devices[9]?.name == nil)
    }

    @Test func aGatewaysTextIsItsFrames() {
        var survey = FeedSurvey()
        Self.take(&survey, Array("00:29:58.617 R 09F1120D FF 1C 3B FF 7F CE F5 FC".utf8))
        #expect(survey.textFrames == 1 && survey.textFormat == .yachtDevicesRaw && survey.devices[0x0D]?.pgns[127250] == 1)
    }

    @Test func aHostileFeedIsCountedWithinBoundsAndNeverTraps() {
        var survey = FeedSurvey()
        var generator = SeededRandomNumberGenerator(seed: 41)
        let alphabet = Array("$!*,.0123456789ABCDEFGHPRTXYZ R:\u{0}\u{7F}\u{FF}".utf8)
        for _ in 0..<20_000 {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:  // noise, and sentence-like noise
                let line = (0..<Int.random(in: 0..<120, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
                Self.take(&survey, line)
            case 1:  // a gateway's text with any identifier and bytes
                let count = Int.random(in: 0...9, using: &generator)
                let text = "00:00:00.000 R \(String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 16))"
                    + (0..<count).map { _ in " " + String(UInt8.random(in: 0...255, using: &generator), radix: 16) }.joined()
                Self.take(&survey, Array(text.utf8))
            default:  // a frame of any PGN from any address, fast-packet starts included
                let bytes = (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let identifier = CANIdentifier(
                    priority: 2, pgn: [127_250, 126_996, 60_928, 129_026, UInt32.random(in: 0...0x1FFFF, using: &generator)].randomElement(using: &generator)!,
                    source: UInt8.random(in: 0...255, using: &generator))
                if let frame = CANFrame(identifier: identifier, bytes: bytes) { survey.take(frame: frame) }
            }
        }
        #expect(survey.sentences.count <= FeedSurvey.maximumAddresses && survey.headings.count <= FeedSurvey.maximumAddresses)
        #expect(survey.devices.count <= 254 && survey.devices.values.allSatisfy { $0.pgns.count <= FeedSurvey.maximumPGNs })
        #expect(survey.devices.values.allSatisfy { ($0.model ?? "").unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) } && ($0.model?.count ?? 0) <= 32 })
        #expect(survey.unreadable > 0 && survey.frames > 0)
    }
}
