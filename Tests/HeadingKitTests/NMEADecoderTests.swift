// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

/// Each sentence type with values checked by hand.
struct NMEADecoderTests {
    private func decode(_ line: String) throws -> NMEAReport { try NMEADecoder.decode(Array(line.utf8)) }

    private func reading(_ line: String) throws -> HeadingReading {
        let report = try decode(line)
        guard case .heading(let reading) = report.content else {
            Issue.record("\(line) gave \(report.content), not a heading")
            return HeadingReading(kind: .compass)
        }
        return reading
    }

    @Test func hdtIsTrueHeadingAndEmptyIsNoHeading() throws {
        #expect(try reading("$GPHDT,274.07,T*03").trueHeading == 274.07)
        #expect(try reading("$GPHDT,274.07,T*03").kind == .gnssCompass)
        #expect(try reading("$HEHDT,4.0,T").kind == .inertial)
        #expect(try decode("$GPHDT,,T*1B").content == .noHeading)
        #expect(try reading("$GPHDT,0.00,T").trueHeading == 0)
        #expect(try reading("$GPHDT,359.99,T").trueHeading == 359.99)
    }

    @Test func hdmIsMagneticHeading() throws {
        let value = try reading("$HCHDM,238.5,M")
        #expect(value.magneticHeading == 238.5)
        #expect(value.trueHeading == nil)
        #expect(try decode("$HCHDM,,M").content == .noHeading)
    }

    @Test func hdgAppliesDeviationThenVariationEastPositive() throws {
        // B&G Zeus² from bundg_zeus_9.log: sensor 229.8, no deviation, variation 1.3 E.
        let bundg = try reading("$SDHDG,229.8,,,1.3,E*36")
        #expect(bundg.magneticHeading == 229.8)
        #expect(bundg.trueHeading.flatMap(Degrees.normalized) == 231.1)
        #expect(bundg.magneticVariation == 1.3)
        #expect(bundg.deviation == nil)
        // Deviation West and variation West: magnetic = 100 − 2 = 98, true = 98 − 5 = 93.
        let west = try reading("$HCHDG,100.0,2.0,W,5.0,W")
        #expect(west.magneticHeading == 98)
        #expect(west.trueHeading == 93)
        #expect(west.deviation == -2)
        #expect(west.magneticVariation == -5)
        // Deviation East, variation West: 200 + 1.5 = 201.5; 201.5 − 3.25 = 198.25.
        let mixed = try reading("$HCHDG,200.0,1.5,E,3.25,W")
        #expect(mixed.magneticHeading == 201.5)
        #expect(mixed.trueHeading == 198.25)
        // Without variation there is no true heading.
        #expect(try reading("$HCHDG,45.0,,,,").trueHeading == nil)
    }

    @Test func hdgCrossesNorthBothWays() throws {
        // 359.0 + 0.5 E deviation + 1.0 E variation = 360.5: true heading 0.5 once on the circle.
        let east = try reading("$HCHDG,359.0,0.5,E,1.0,E")
        #expect(east.trueHeading.flatMap(Degrees.normalized) == 0.5)
        #expect(east.magneticHeading.flatMap(Degrees.normalized) == 359.5)
        // 0.5 − 1.0 W deviation = −0.5 magnetic = 359.5; − 2 W variation = 357.5 true.
        let west = try reading("$HCHDG,0.5,1.0,W,2.0,W")
        #expect(west.magneticHeading.flatMap(Degrees.normalized) == 359.5)
        #expect(west.trueHeading.flatMap(Degrees.normalized) == 357.5)
    }

    @Test func hdgDirectionMustBeEastOrWest() {
        let error = #expect(throws: LineDecodingError.self) { try decode("$HCHDG,100.0,2.0,X,5.0,W") }
        #expect(error?.reason == "field 3 (deviation direction) is 'X'; expected E or W")
        let missing = #expect(throws: LineDecodingError.self) { try decode("$HCHDG,100.0,2.0,,5.0,W") }
        #expect(missing?.reason == "field 3 (deviation direction) is empty; expected E or W")
    }

    @Test func thsTrueHeadingWithModeAndVMeansNoHeading() throws {
        #expect(try reading("$GNTHS,123.45,A").trueHeading == 123.45)
        #expect(try reading("$GNTHS,0.10,E").trueHeading == 0.1)
        #expect(try decode("$GNTHS,123.45,V").content == .noHeading)
        #expect(try decode("$GNTHS,,V").content == .noHeading)
        let error = #expect(throws: LineDecodingError.self) { try decode("$GNTHS,123.45,Q") }
        #expect(error?.reason == "field 2 (mode) is 'Q'; expected A, E, M, S or V")
    }

    @Test func pashrGivesHeadingRollPitchAccuracyAndTimeOfDay() throws {
        let report = try decode("$PASHR,204132.000,010.51,T,+00.39,-00.79,-00.84,0.151,0.075,0.555,1,0*03")
        guard case .heading(let value) = report.content else { Issue.record("no heading"); return }
        #expect(value.trueHeading == 10.51)
        #expect(value.roll == 0.39)
        #expect(value.pitch == -0.79)
        #expect(value.accuracy == 0.555)
        #expect(value.kind == .inertial)
        let expectedTime: Double = 20 * 3600 + 41 * 60 + 32
        #expect(report.time == .timeOfDay(seconds: expectedTime))
    }

    @Test func ptnthtmGivesHeadingAndRaisesAlarms() throws {
        let value = try reading("$PTNTHTM,243.5,N,2.5,N,-1.5,N,62.0,2454")
        #expect(value.trueHeading == 243.5)
        #expect(value.pitch == 2.5)
        #expect(value.roll == -1.5)
        #expect(try reading("$PTNTHTM,243.5,M,2.5,N,-1.5,N,62.0,2454").trueHeading == 243.5, "a warning still gives a heading")
        #expect(
            try decode("$PTNTHTM,243.5,C,2.5,N,-1.5,N,62.0,2454").content
                == .alarm(.calibrationNeeded, reason: "compass reports a magnetometer calibration alarm")
        )
        // tnt-revolution.log's raw units are not degrees: rejected, never wrapped.
        let error = #expect(throws: LineDecodingError.self) { try decode("$PTNTHTM,14223,N,169,N,-43,N,13641,2454*15") }
        #expect(error?.code == .outOfRange)
        #expect(error?.reason == "field 1 (true heading) 14223 is outside 0–360°")
    }

    @Test func rmcGivesCourseSpeedVariationAndDate() throws {
        let report = try decode("$GPRMC,094737,A,5251.0093,N,00518.8170,E,5.6,230.5,200818,1.4,E,A*1F")
        guard case .course(let course, let speed) = report.content else { Issue.record("no course"); return }
        #expect(course.trueHeading == 230.5)
        #expect(course.magneticHeading == 229.1)
        #expect(course.magneticVariation == 1.4)
        #expect(course.kind == .courseOverGround)
        #expect(abs(speed - 5.6 * 1852 / 3600) < 1e-9)
        // 2018-08-20T09:47:37Z
        #expect(report.time == .date(secondsSince1970: 1_534_758_457))
        let west = try decode("$GPRMC,000000,A,0,N,0,E,10,359.5,010100,2.0,W,A")
        guard case .course(let westCourse, _) = west.content else { Issue.record("no course"); return }
        #expect(westCourse.magneticHeading.flatMap(Degrees.normalized) == 1.5, "359.5 true with 2° W variation is 1.5 magnetic")
        #expect(west.time == .date(secondsSince1970: 946_684_800))
    }

    @Test func rmcWithoutAValidFixGivesNoCourse() throws {
        #expect(try decode("$GPRMC,095255.810,V,2712.6404,S,15303.1201,E,0.00,0.00,080407,,,A*6E").content == .none)
        #expect(try decode("$GPRMC,095255.810,A,2712.6404,S,15303.1201,E,0.00,,080407,,,A").content == .none)
    }

    @Test func vtgInModernAndOldLayouts() throws {
        guard case .course(let modern, let speed) = try decode("$GPVTG,237.64,T,252.28,M,0.02,N,0.04,K,A*2E").content
        else { Issue.record("no course"); return }
        #expect(modern.trueHeading == 237.64)
        #expect(modern.magneticHeading == 252.28)
        #expect(abs(speed - 0.02 * 1852 / 3600) < 1e-12)
        guard case .course(let old, _) = try decode("$GPVTG,054.7,034.4,005.5,010.2").content else {
            Issue.record("no course")
            return
        }
        #expect(old.trueHeading == 54.7)
        #expect(old.magneticHeading == 34.4)
        #expect(try decode("$GPVTG,,T,,M,,N,,K,N*2C").content == .none)
    }

    @Test func zdaGivesTheDate() throws {
        #expect(try decode("$GPZDA,193913.00,07,09,2018,00,00*63").time == .date(secondsSince1970: 1_536_349_153))
    }

    @Test func otherSentencesReportNothingButAreChecked() throws {
        #expect(try decode("$GPGGA,,,,,,0,,,,M,,M,,*66").content == .none)
        #expect(try decode("!AIVDM,1,1,,B,13aGhtw0R<OJf=6LgQ?Ad1FF05`L,0*24").content == .none)
        #expect(throws: LineDecodingError.self) { try decode("$GPGGA,,,,,,0,,,,M,,M,,*67") }
    }

    @Test(arguments: [
        ("$GPHDT,360.5,T", "field 1 (true heading) 360.5 is outside 0–360°"),
        ("$GPHDT,-0.5,T", "field 1 (true heading) -0.5 is outside 0–360°"),
        ("$HCHDG,10,200,E,1,E", "field 2 (deviation) 200 is outside ±180°"),
        ("$PASHR,204132.000,010.51,T,+00.39,-95.00,-00.84,0.151,0.075,0.555,1,0", "field 5 (pitch) -95.00 is outside -90.0…90.0"),
        ("$GPZDA,253913.00,07,09,2018,00,00", "field 1 (time) '253913.00' is not a time of day"),
        ("$GPZDA,193913.00,32,09,2018,00,00", "date 2018-9-32 is not a valid date"),
        // Numbers beyond Int: refused, never a trap on the conversion.
        ("$GPZDA,193913.00,07,09,9999999999999999999,00,00", "date 1e+19-9-7 is not a valid date"),
        ("$GPZDA,193913.00,07,09,-9999999999999999999,00,00", "date -1e+19-9-7 is not a valid date"),
        ("$GPZDA,193913.00,99999999999999999999,09,2018,00,00", "date 2018-9-1e+20 is not a valid date"),
        ("$GPZDA,193913.00,07.5,09,2018,00,00", "date 2018-9-7.5 is not a valid date"),
    ])
    func valuesOutOfRangeAreRejected(line: String, reason: String) {
        let error = #expect(throws: LineDecodingError.self) { try decode(line) }
        #expect(error?.code == .outOfRange)
        #expect(error?.reason == reason)
    }
}
