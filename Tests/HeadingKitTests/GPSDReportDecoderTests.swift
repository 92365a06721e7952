// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

/// gpsd JSON reports as `gpspipe -w` writes them, with values checked by hand.
struct GPSDReportDecoderTests {
    private func decode(_ line: String) throws -> GPSDReport { try GPSDReportDecoder.decode(Array(line.utf8)) }

    private func error(_ line: String) -> LineDecodingError? {
        do {
            _ = try GPSDReportDecoder.decode(Array(line.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func attGivesTrueHeadingPitchRollAndTime() throws {
        let report = try decode(
            #"{"class":"ATT","device":"/dev/ttyUSB0","time":"2018-09-07T19:40:58.250Z","heading":274.07,"pitch":-1.5,"roll":2.25,"mag_st":"N","yaw":1}"#
        )
        guard case .attitude(let reading?, let time, let device) = report else {
            Issue.record("not an attitude: \(report)")
            return
        }
        #expect(reading.trueHeading == 274.07)
        #expect(reading.magneticHeading == nil)
        #expect(reading.pitch == -1.5)
        #expect(reading.roll == 2.25)
        #expect(reading.kind == .compass)
        #expect(device == "/dev/ttyUSB0")
        let expected = Date(timeIntervalSince1970: 1_536_349_258.25)
        #expect(time == expected)
    }

    @Test func attWithoutTimeOrHeadingIsAnAttitudeWithoutAReading() throws {
        // Debian 12's gpsd 3.22 sends ATT for HDT with no time; an empty HDT gives no heading.
        #expect(try decode(#"{"class":"ATT","device":"/dev/pts/1","heading":274.11}"#).time == nil)
        #expect(try decode(#"{"class":"ATT","device":"/dev/pts/1"}"#) == .attitude(nil, time: nil, device: "/dev/pts/1"))
    }

    @Test func attMagneticHeadingIsKeptApart() throws {
        guard case .attitude(let reading?, _, _) = try decode(#"{"class":"ATT","mheading":12.5}"#) else {
            Issue.record("no reading")
            return
        }
        #expect(reading.magneticHeading == 12.5)
        #expect(reading.trueHeading == nil)
    }

    @Test(arguments: [("C", HeadingFault.Code.calibrationNeeded), ("L", .deviceLost), ("P", .deviceLost), ("V", .deviceLost)])
    func attMagnetometerAlarmsAreFaults(status: String, code: HeadingFault.Code) throws {
        let report = try decode(#"{"class":"ATT","heading":10.0,"mag_st":"\#(status)"}"#)
        guard case .attitudeAlarm(let alarm, let reason, _, _) = report else {
            Issue.record("not an alarm: \(report)")
            return
        }
        #expect(alarm == code)
        #expect(reason.contains("compass reports"))
    }

    @Test func attHeadingsInRawUnitsAreRejectedNeverWrapped() {
        // tnt-revolution.log: gpsd passes the compass's raw 14042 on as a heading.
        let failure = error(#"{"class":"ATT","heading":14042.0,"mag_st":"N"}"#)
        #expect(failure?.code == .outOfRange)
        #expect(failure?.reason.contains("heading 14042.0 is outside 0–360°") == true)
        #expect(error(#"{"class":"ATT","heading":-0.5}"#)?.code == .outOfRange)
        #expect(error(#"{"class":"ATT","heading":10,"pitch":200}"#)?.code == .outOfRange)
    }

    @Test(arguments: [
        (#"{"class":"TPV","mode":3,"time":1e300,"track":10,"speed":5}"#, "time 1e+300 s since 1970 is outside 1980–2200"),
        (#"{"class":"TPV","mode":3,"time":"9999-01-01T00:00:00.000Z","track":10,"speed":5}"#, "s since 1970 is outside 1980–2200"),
        (#"{"class":"ATT","time":"1970-01-02T00:00:00Z","heading":10}"#, "s since 1970 is outside 1980–2200"),
        (#"{"class":"TPV","mode":3,"lat":54,"lon":10,"altHAE":-6371000,"track":10,"speed":5}"#, "altHAE -6371000.0 is outside"),
        (#"{"class":"TPV","mode":3,"lat":54,"lon":10,"altHAE":1e308,"track":10,"speed":5}"#, "altHAE 1e+308 is outside"),
        (#"{"class":"TPV","mode":3,"lat":54,"lon":10,"alt":-1e9,"track":10,"speed":5}"#, "alt -1000000000.0 is outside"),
    ])
    func timesAndAltitudesOutOfRangeAreRefused(report: String, reason: String) {
        let failure = error(report)
        #expect(failure?.code == .outOfRange)
        #expect(failure?.reason.contains(reason) == true, "\(String(describing: failure?.reason))")
    }

    @Test func tpvGivesCourseWithMagneticTrackAndVariation() throws {
        let report = try decode(
            #"{"class":"TPV","device":"/dev/ttyS0","mode":3,"time":"2024-05-01T12:00:00.000Z","track":359.5,"magtrack":1.5,"magvar":-2.0,"speed":4.2}"#
        )
        guard case .position(let course?, let speed, _, _, let time, _, _) = report else {
            Issue.record("no course: \(report)")
            return
        }
        #expect(course.kind == .courseOverGround)
        #expect(course.trueHeading == 359.5)
        #expect(course.magneticHeading == 1.5)
        #expect(course.magneticVariation == -2.0)
        #expect(speed == 4.2)
        #expect(time == Date(timeIntervalSince1970: 1_714_564_800))
    }

    @Test func tpvMagneticCourseComesFromVariationWhenMagtrackIsMissing() throws {
        guard case .position(let course?, _, _, _, _, _, _) = try decode(#"{"class":"TPV","mode":2,"track":100.0,"magvar":5.0}"#)
        else {
            Issue.record("no course")
            return
        }
        // East variation is positive: magnetic = true − variation.
        #expect(course.magneticHeading == 95.0)
    }

    @Test func tpvWithoutAFixOrTrackGivesNoCourse() throws {
        #expect(try decode(#"{"class":"TPV","mode":1,"track":100.0,"speed":3}"#) == .position(course: nil, speed: 3, fix: nil, variation: nil, time: nil, device: nil))
        #expect(try decode(#"{"class":"TPV","mode":3,"speed":3}"#) == .position(course: nil, speed: 3, fix: nil, variation: nil, time: nil, device: nil))
    }

    /// gpsd's moving-base heading (`relH`, from a u-blox RELPOSNED): a dual-antenna heading, read
    /// only with a fix, and delivered by the line decoder in place of the course.
    @Test func tpvRelativeHeadingIsADualAntennaHeading() throws {
        let line = #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"lat":54.5,"lon":10.2,"track":80.0,"speed":0.1,"relH":123.45,"relL":1.2}"#
        guard case .position(_, _, _, _, _, _, let relative?) = try decode(line) else {
            Issue.record("no relative heading")
            return
        }
        #expect(relative.trueHeading == 123.45)
        #expect(relative.kind == .gnssCompass)
        #expect(try GPSDReportDecoder.decodeWithJSONDecoder(Array(line.utf8)) == decode(line), "both readers agree")
        guard case .position(_, _, _, _, _, _, nil) = try decode(#"{"class":"TPV","mode":1,"relH":123.45}"#) else {
            Issue.record("a relative heading without a fix")
            return
        }
        #expect(throws: LineDecodingError.self) { try decode(#"{"class":"TPV","mode":3,"relH":400}"#) }
        var decoder = HeadingLineDecoder(path: nil, sourceName: "gpsd", timestamping: .reception)
        let output = decoder.decode(Array(line.utf8), number: 1, receivedAt: Date(timeIntervalSince1970: 0))
        #expect(output.report?.heading?.trueHeading == 123.45)
        #expect(output.report?.heading?.kind == .gnssCompass)
        #expect(output.report?.heading?.position?.latitude == 54.5)
    }

    @Test func tpvTimeMayBeSecondsSinceTheEpoch() throws {
        #expect(try decode(#"{"class":"TPV","mode":1,"time":1536349258.5}"#).time == Date(timeIntervalSince1970: 1_536_349_258.5))
        #expect(error(#"{"class":"TPV","time":"yesterday"}"#)?.reason.contains("not an ISO 8601") == true)
    }

    @Test func deviceActivatedZeroMeansTheDeviceWentAway() throws {
        #expect(try decode(#"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":0}"#) == .device(path: "/dev/ttyUSB0", isActive: false))
        #expect(
            try decode(#"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":"2024-05-01T12:00:00.000Z","driver":"NMEA0183"}"#)
                == .device(path: "/dev/ttyUSB0", isActive: true)
        )
        #expect(error(#"{"class":"DEVICE","activated":0}"#)?.reason == "DEVICE report without a path")
    }

    @Test func errorCarriesGpsdsMessage() throws {
        #expect(try decode(#"{"class":"ERROR","message":"Can't open /dev/ttyUSB9."}"#) == .error(message: "Can't open /dev/ttyUSB9."))
    }

    @Test func unknownClassesAndFieldsAreIgnored() throws {
        #expect(try decode(#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#) == .other(className: "VERSION"))
        #expect(try decode(#"{"class":"SKY","satellites":[{"PRN":1}]}"#) == .other(className: "SKY"))
        guard case .attitude(let reading?, _, _) = try decode(#"{"class":"ATT","heading":1.0,"future_field":{"a":[1,2]}}"#) else {
            Issue.record("unknown field broke the report")
            return
        }
        #expect(reading.trueHeading == 1.0)
    }

    @Test(arguments: [
        (#"{"class":"ATT","heading":"north"}"#, "'heading' has the wrong type"),
        (#"{"heading":1.0}"#, "missing 'class'"),
        (#"{"class":"ATT","heading":1.0"#, "not a gpsd JSON report"),
        (#"[1,2,3]"#, "not a gpsd JSON report"),
    ])
    func malformedReportsSayWhy(line: String, reason: String) {
        let failure = error(line)
        #expect(failure?.code == .malformedInput)
        #expect(failure?.reason.contains(reason) == true, "reason was: \(failure?.reason ?? "none")")
    }

    @Test func reportClassIsReadWithoutDecodingTheRest() {
        #expect(GPSDReportDecoder.reportClass(of: Array(#"{"class":"ATT","heading":99999}"#.utf8)) == "ATT")
        #expect(GPSDReportDecoder.reportClass(of: Array("not json".utf8)) == nil)
    }
}
