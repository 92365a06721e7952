// headingd — NMEA2000 tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NMEA2000
import Testing

@Suite("NMEA 2000 decoding")
struct NMEA2000DecodingTests {
    @Test("a 29-bit identifier: priority, PGN, source; PDU1 keeps its destination out of the PGN")
    func identifiers() {
        let heading = CANIdentifier(0x09F1_1213)
        #expect(heading.priority == 2)
        #expect(heading.pgn == 127_250)
        #expect(heading.source == 0x13)
        #expect(heading.destination == 255)
        #expect(!heading.isAddressed)
        let request = CANIdentifier(0x18EA_2301)  // ISO Request (59904) to 0x23 from 1
        #expect(request.pgn == 59_904)
        #expect(request.destination == 0x23)
        #expect(request.isAddressed)
        let claim = CANIdentifier(0x18EE_FF69)
        #expect(claim.pgn == NMEA2000PGN.addressClaim)
        #expect(claim.destination == 255)
        // Linux's flags above bit 28 are ignored; parts make the same identifier back.
        #expect(CANIdentifier(0x8000_0000 | 0x09F1_1213) == heading)
        #expect(CANIdentifier(priority: 2, pgn: 127_250, source: 0x13) == heading)
        #expect(CANIdentifier(priority: 6, pgn: 59_904, source: 1, destination: 0x23) == request)
    }

    @Test("Vessel Heading: 85.2° magnetic, deviation and variation not available")
    func vesselHeading() throws {
        let frame = try #require(CANFrame(identifier: CANIdentifier(0x09F1_1213), bytes: [0x00, 0x16, 0x3A, 0xFF, 0x7F, 0xFF, 0x7F, 0xFD]))
        let heading = try #require(frame.withUnsafeBytes { VesselHeading(NMEA2000Message(priority: 2, pgn: 127_250, source: 0x13, payload: $0)) })
        #expect(abs(heading.heading.value! - 85.199) < 0.001)
        #expect(heading.deviation == .notAvailable)
        #expect(heading.variation == .notAvailable)
        #expect(heading.reference == .magnetic)
        #expect(frame.description == "09F11213#00163AFF7FFF7FFD")
    }

    @Test("each field's special values: not available, out of range, reserved; a short payload is no heading")
    func specialValues() {
        func decode(_ bytes: [UInt8]) -> VesselHeading? {
            bytes.withUnsafeBufferPointer { VesselHeading(NMEA2000Message(priority: 2, pgn: 127_250, source: 1, payload: $0)) }
        }
        #expect(decode([0, 0xFF, 0xFF, 0xFE, 0x7F, 0xFD, 0x7F, 0xFC])?.heading == .notAvailable)
        #expect(decode([0, 0xFE, 0xFF, 0xFE, 0x7F, 0xFD, 0x7F, 0xFC])?.heading == .outOfRange)
        #expect(decode([0, 0xFD, 0xFF, 0xFE, 0x7F, 0xFD, 0x7F, 0xFC])?.heading == .reserved)
        #expect(decode([0, 0xFD, 0xFF, 0xFE, 0x7F, 0xFD, 0x7F, 0xFC])?.deviation == .outOfRange)
        #expect(decode([0, 0xFD, 0xFF, 0xFE, 0x7F, 0xFD, 0x7F, 0xFC])?.variation == .reserved)
        #expect(decode([0, 0xFD, 0xFF, 0xFE, 0x7F, 0xFD, 0x7F, 0xFC])?.reference == .true)
        #expect(decode([0, 0xFD, 0xFF, 0xFE, 0x7F, 0xFD, 0x7F, 0xFF])?.reference == .notAvailable)
        #expect(decode([0, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0xFE])?.deviation.value.map { $0 < -187 } == true)  // -32768 e-4 rad
        #expect(decode([0, 1, 2]) == nil)
        // The field holds up to 375°: past 2π is out of range, not a heading off the circle (found by FuzzNMEA2000).
        #expect(decode([0, 0x6F, 0xF5, 0xFF, 0x7F, 0xFF, 0x7F, 0xFC])?.heading.value.map { $0 < 360 } == true)  // 62831: 359.9998°
        #expect(decode([0, 0x70, 0xF5, 0xFF, 0x7F, 0xFF, 0x7F, 0xFC])?.heading == .outOfRange)  // 62832
        #expect(decode([0, 0xFC, 0xFF, 0xFF, 0x7F, 0xFF, 0x7F, 0xFC])?.heading == .outOfRange)  // 65532: 375.5°
    }

    @Test("Vessel Heading in canboat's samples, as canboat's analyzer decodes them", arguments: [
        ("dirona-two-compasses.csv", "dirona-two-compasses.expected.csv"),
        ("merrimac-ydwg-2020.ydraw", "merrimac-ydwg-2020.expected.csv"),
        ("dirona-parity.candump.log", "dirona-parity.expected.csv"),
    ])
    func againstCanboat(recording: String, expectation: String) throws {
        let expected = try N2KFixtures.expected(expectation)
        let decoded = try N2KFixtures.decodedHeadings(recording)
        #expect(decoded.count == expected.count)
        #expect(expected.count > 50)
        func close(_ a: Double?, _ b: Double?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): abs(a - b) <= 0.051
            default: false
            }
        }
        for (ours, theirs) in zip(decoded, expected) {
            #expect(ours.source == theirs.source)
            #expect(close(ours.heading, theirs.heading), "\(ours) vs \(theirs)")
            #expect(close(ours.deviation, theirs.deviation), "\(ours) vs \(theirs)")
            #expect(close(ours.variation, theirs.variation), "\(ours) vs \(theirs)")
            #expect(ours.reference == theirs.reference)
        }
        // Both heading devices of the Dirona recording are there.
        if recording.hasPrefix("dirona") { #expect(Set(decoded.map(\.source)) == [7, 105]) }
    }

    @Test("Magnetic Variation's 6-byte form, its source a WMM edition (as canboat's analyzer: WMM 2005, 2009-12-31, -15.0°)")
    func magneticVariation() throws {
        let bytes: [UInt8] = [0xFF, 0xF5, 0x11, 0x39, 0xCE, 0xF5]
        let variation = try #require(bytes.withUnsafeBufferPointer { MagneticVariation(NMEA2000Message(priority: 7, pgn: 127_258, source: 7, payload: $0)) })
        #expect(variation.source == .worldMagneticModel(edition: 2005))
        #expect(variation.source.description == "WMM 2005")
        #expect(variation.ageOfService.value == 14_609)  // 2009-12-31
        #expect(abs(variation.variation.value! - -14.954) < 0.001)
        let eight: [UInt8] = [0x93, 0xF0, 0xFF, 0xFF, 0xB5, 0xF2, 0xFF, 0xFF]  // Maretron's: manual, -19.5°
        let manual = try #require(eight.withUnsafeBufferPointer { MagneticVariation(NMEA2000Message(priority: 7, pgn: 127_258, source: 105, payload: $0)) })
        #expect(manual.source == .manual)
        #expect(manual.ageOfService == .notAvailable)
        #expect(abs(manual.variation.value! - -19.5) < 0.05)
    }

    @Test("rate of turn, attitude, COG & SOG, position, system time")
    func otherPGNs() throws {
        func message<T>(_ pgn: UInt32, _ bytes: [UInt8], _ decode: (NMEA2000Message) -> T?) -> T? {
            bytes.withUnsafeBufferPointer { decode(NMEA2000Message(priority: 2, pgn: pgn, source: 1, payload: $0)) }
        }
        // 1 rad/s is 32 000 000 units of 3.125e-8 rad/s.
        let rate = try #require(message(127_251, [0, 0x00, 0x48, 0xE8, 0x01, 0xFF, 0xFF, 0xFF], RateOfTurn.init))
        #expect(abs(rate.rate.value! - 57.2958) < 0.001)
        let attitude = try #require(message(127_257, [0, 0xFF, 0x7F, 0xE8, 0x03, 0x18, 0xFC, 0xFF], Attitude.init))
        #expect(attitude.yaw == .notAvailable)
        #expect(abs(attitude.pitch.value! - 5.7296) < 0.001)
        #expect(abs(attitude.roll.value! - -5.7296) < 0.001)
        let course = try #require(message(129_026, [0, 0xFC, 0x10, 0x3B, 0xF4, 0x01, 0xFF, 0xFF], CourseAndSpeedRapidUpdate.init))
        #expect(course.reference == .true)
        #expect(abs(course.course.value! - 86.631) < 0.001)
        #expect(course.speed.value == 5.0)
        let position = try #require(message(129_025, [0x80, 0x96, 0x98, 0x00, 0x80, 0x69, 0x67, 0xFF], PositionRapidUpdate.init))
        #expect(abs(position.latitude.value! - 1.0) < 1e-9)
        #expect(abs(position.longitude.value! - -1.0) < 1e-9)
        // 2016-02-28 is day 16859; 19:57:02.5 is 718 225 000 × 0.0001 s.
        let time = try #require(message(126_992, [0, 0xF0, 0xDB, 0x41, 0x68, 0x3E, 0xCF, 0x2A], SystemTime.init))
        #expect(time.source == 0)
        #expect(time.secondsSince1970 == 16_859 * 86_400 + 71_822.5)
    }

    @Test("ISO Address Claim: the NAME of a Maretron heading sensor (as canboat's analyzer reads it)")
    func addressClaim() throws {
        let bytes: [UInt8] = [0xEF, 0x25, 0x31, 0x11, 0x03, 0xA0, 0x50, 0xC0]
        let name = try #require(bytes.withUnsafeBufferPointer { DeviceName(NMEA2000Message(priority: 6, pgn: 60_928, source: 105, payload: $0)) })
        #expect(name.uniqueNumber == 1_123_823)
        #expect(name.manufacturerCode == 137)
        #expect(name.manufacturer == "Maretron")
        #expect(name.deviceInstance == 3)
        #expect(name.deviceFunction == 160)
        #expect(name.deviceClass == 40)
        #expect(name.function == "heading sensor")
        #expect(name.industryGroup == 4)
        #expect(name.description == "0xC050A003113125EF")
    }
}
