// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import HeadingKit
import Testing

/// What the decoder carries from a fix to later headings: position and the device's variation,
/// and what the processor makes of it.
struct HeadingLineDecoderFixTests {
    static func decode(_ lines: [String], minimumCourseSpeed: Double = 0.5) -> [HeadingEvent] {
        var decoder = HeadingLineDecoder(path: "boat.nmea", sourceName: "boat", minimumCourseSpeed: minimumCourseSpeed)
        return lines.enumerated().compactMap { index, line in
            decoder.decode(Array(line.utf8), number: index + 1, receivedAt: Date(timeIntervalSince1970: 0)).report?.event
        }
    }

    @Test func aMagneticHeadingCarriesTheVariationAndPositionOfTheLastRMC() throws {
        // Stationary (0.2 knots): the RMC gives no course heading, but its fix and variation count.
        let events = Self.decode([
            nmea("GPRMC,120000.00,A,5419.200,N,01008.400,E,0.2,45.0,010726,4.6,E,A"),
            nmea("HCHDM,100.0,M"),
        ])
        let heading = try #require(events.compactMap(\.heading).first)
        #expect(events.count == 1, "the slow RMC gave a heading: \(events)")
        #expect(heading.magneticHeading == 100 && heading.trueHeading == nil)
        #expect(heading.magneticVariation == 4.6)
        let position = try #require(heading.position)
        #expect(abs(position.latitude - 54.32) < 1e-9 && abs(position.longitude - 10.14) < 1e-9)
        // The processor derives the true heading from the device's variation, not the model's.
        var core = HeadingProcessor.Core(sources: [("boat", .init())], configuration: .init())
        let processed = try #require(core.receive(.heading(heading), from: 0, at: .zero).compactMap(\.heading).first)
        #expect(processed.trueHeading == 104.6)
        #expect(processed.variationOrigin == .device)
    }

    @Test func courseOverGroundIsIgnoredBelowTheMinimumSpeed() {
        let slow = Self.decode([nmea("GPRMC,120000.00,A,5419.200,N,01008.400,E,1.9,45.0,010726,,,A")], minimumCourseSpeed: 1)
        #expect(slow.isEmpty, "1.9 knots is 0.98 m/s: below 1 m/s")
        let fast = Self.decode([nmea("GPRMC,120000.00,A,5419.200,N,01008.400,E,2.0,45.0,010726,,,A")], minimumCourseSpeed: 1)
        #expect(fast.compactMap(\.heading).map(\.trueHeading) == [45])
        #expect(fast.compactMap(\.heading).first?.kind == .courseOverGround)
    }

    @Test func aGPSDFixGivesItsPositionAndVariationToAnAttitudeReport() throws {
        let events = Self.decode([
            #"{"class":"TPV","device":"/dev/ttyS0","mode":3,"lat":-33.87,"lon":151.21,"altHAE":40.5,"magvar":12.8,"speed":0.0}"#,
            #"{"class":"ATT","device":"/dev/ttyS0","mheading":200.0}"#,
        ])
        let heading = try #require(events.compactMap(\.heading).first)
        #expect(heading.magneticVariation == 12.8)
        #expect(heading.position == GeographicPosition(latitude: -33.87, longitude: 151.21, altitude: 40.5))
    }

    @Test func aBadPositionIsAFaultNamingTheField() {
        let events = Self.decode([nmea("GPRMC,120000.00,A,5479.200,N,01008.400,E,2.0,45.0,010726,,,A")])
        #expect(events.compactMap(\.fault).first?.reason.contains("field 3 (latitude)") == true)
    }

    /// A flat-out replay reads the clock only while the decoder may use it: before the recording
    /// has given a time, or always when headings are stamped on reception.
    @Test func theReceptionTimeIsUsedExactlyUntilTheRecordingGivesATime() throws {
        let received = Date(timeIntervalSince1970: 1_000)
        var decoder = HeadingLineDecoder(path: "boat.nmea", sourceName: "boat")
        #expect(decoder.usesReceptionTime)
        let early = try #require(decoder.decode(Array(nmea("HEHDT,10.0,T").utf8), number: 1, receivedAt: received).report?.event.heading)
        #expect(early.timestamp == received)
        _ = decoder.decode(Array(nmea("GPRMC,120000.00,A,5419.200,N,01008.400,E,0.2,45.0,010726,4.6,E,A").utf8), number: 2, receivedAt: received)
        #expect(!decoder.usesReceptionTime)
        // What it says is what it does: a date passed now is not read.
        let late = try #require(decoder.decode(Array(nmea("HEHDT,11.0,T").utf8), number: 3, receivedAt: .distantPast).report?.event.heading)
        #expect(late.timestamp != Date.distantPast && late.timestamp > received)
        decoder.restart()
        #expect(decoder.usesReceptionTime)

        var onReception = HeadingLineDecoder(path: nil, sourceName: "boat", timestamping: .reception)
        _ = onReception.decode(Array(nmea("GPRMC,120000.00,A,5419.200,N,01008.400,E,0.2,45.0,010726,4.6,E,A").utf8), number: 1, receivedAt: received)
        #expect(onReception.usesReceptionTime)
    }
}
