// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

struct DegreesTests {
    @Test(arguments: [
        (0.0, 0.0), (360.0, 0.0), (720.25, 0.25), (-0.5, 359.5), (-360.0, 0.0), (359.999, 359.999),
        (-1e-15, 0.0), (-0.0, 0.0), (1e9 + 0.5, 280.5),
    ])
    func normalizedFoldsIntoHalfOpenCircle(input: Double, expected: Double) throws {
        let result = try #require(Degrees.normalized(input))
        #expect(abs(result - expected) < 1e-9)
        #expect(result >= 0 && result < 360)
        #expect(result.sign == .plus)
    }

    @Test func normalizedRemovesTheBinaryNoiseOfSums() {
        #expect(Degrees.normalized(229.8 + 1.3) == 231.1)
        #expect("\(Degrees.normalized(229.8 + 1.3)!)" == "231.1")
        #expect(Degrees.normalized(-48.16) == 311.84)
        #expect(Degrees.normalized(359.9999999999) == 0)
        #expect(Degrees.normalized(274.07) == 274.07)
    }

    @Test func normalizedRejectsNonFiniteValues() {
        #expect(Degrees.normalized(.nan) == nil)
        #expect(Degrees.normalized(.infinity) == nil)
        #expect(Degrees.normalized(-.infinity) == nil)
    }

    @Test func normalizedNeverReturns360ForValuesJustBelowZero() {
        // -1e-14 + 360 rounds to exactly 360.0 in binary floating point.
        for exponent in 10...20 {
            let value = -pow(10, -Double(exponent))
            let result = Degrees.normalized(value)!
            #expect(result < 360, "\(value) became \(result)")
        }
    }

    @Test func signedDifferenceTakesTheShortWayAcrossNorth() {
        #expect(abs(Degrees.signedDifference(from: 359.5, to: 0.3) - 0.8) < 1e-9)
        #expect(abs(Degrees.signedDifference(from: 0.3, to: 359.5) + 0.8) < 1e-9)
        #expect(Degrees.signedDifference(from: 90, to: 270) == 180)
        #expect(Degrees.signedDifference(from: 270, to: 90) == 180)
        #expect(Degrees.signedDifference(from: 10, to: 20) == 10)
    }

    @Test func distanceIsSymmetricAndAtMost180() {
        #expect(abs(Degrees.distance(359.5, 0.3) - 0.8) < 1e-9)
        #expect(abs(Degrees.distance(0.3, 359.5) - 0.8) < 1e-9)
        #expect(Degrees.distance(0, 180) == 180)
        #expect(Degrees.distance(45, 45) == 0)
    }
}

struct HeadingTests {
    @Test func initializerNormalizesHeadingsAndDropsNonFiniteOnes() {
        let heading = Heading(
            trueHeading: 360, magneticHeading: -10, headingAccuracy: .nan, timestamp: epoch, source: "t"
        )
        #expect(heading.trueHeading == 0)
        #expect(heading.magneticHeading == 350)
        #expect(heading.headingAccuracy == nil)
        let unknown = Heading(trueHeading: .infinity, magneticHeading: 12, timestamp: epoch, source: "t")
        #expect(unknown.trueHeading == nil)
        #expect(unknown.preferredHeading == 12)
    }

    @Test func accuracyIsNilWhenUnknownNeverNegative() {
        #expect(Heading(trueHeading: 1, magneticHeading: nil, headingAccuracy: -1, timestamp: epoch, source: "t")
            .headingAccuracy == nil)
        #expect(Heading(trueHeading: 1, magneticHeading: nil, timestamp: epoch, source: "t").headingAccuracy == nil)
        #expect(Heading(trueHeading: 1, magneticHeading: nil, headingAccuracy: 0.5, timestamp: epoch, source: "t")
            .headingAccuracy == 0.5)
    }

    @Test func headingRoundTripsThroughJSON() throws {
        let original = Heading(
            trueHeading: 274.07, magneticHeading: 270.1, headingAccuracy: 0.2, timestamp: epoch,
            source: "gpsd://127.0.0.1:2947", kind: .gnssCompass, pitch: 1.5, roll: -2, magneticVariation: 3.97
        )
        let decoded = try JSONDecoder().decode(Heading.self, from: JSONEncoder().encode(original))
        #expect(decoded == original)
    }

    @Test func faultDescriptionNamesSourceCodeLocationAndReason() {
        let fault = HeadingFault(
            code: .malformedInput, source: "replay:boat.nmea", reason: "bad checksum",
            location: .init(path: "boat.nmea", line: 12)
        )
        #expect(fault.description == "replay:boat.nmea: malformedInput at boat.nmea:12: bad checksum")
    }
}
