// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitTesting
import NMEA2000
import Testing

/// The bus as one source: which device is taken, what it is called, what else is context.
@Suite("NMEA 2000 heading reader")
struct NMEA2000HeadingReaderTests {
    static func claim(_ name: UInt64, from source: UInt8) -> CANFrame {
        CANFrame(identifier: CANIdentifier(priority: 6, pgn: 60_928, source: source, destination: 255), count: 8, data: name)
    }

    static func heading(_ output: NMEA2000HeadingReader.Output) -> HeadingReading? {
        if case .heading(let reading) = output { return reading }
        return nil
    }

    @Test("the first heading device heard is taken and named; another's headings are not")
    func firstHeard() {
        var reader = NMEA2000HeadingReader()
        #expect(reader.chosenDevice == nil)
        #expect(Self.heading(reader.read(CANRecording.vesselHeading(10, source: 7)))?.trueHeading.map { abs($0 - 10) < 0.01 } == true)
        #expect(reader.takeNotice()?.contains("first device heard sending them: device 7") == true)
        #expect(reader.takeNotice() == nil)  // said once
        #expect(Self.heading(reader.read(CANRecording.vesselHeading(50, source: 105))) == nil)
        _ = reader.read(Self.claim(0xC050_A000_E7E0_2C74, from: 7))
        #expect(reader.takeNotice() == "the heading device is device 7 (Furuno heading sensor, NAME 0xC050A000E7E02C74)")
        #expect(reader.knownDevices.map(\.address) == [7, 105])
    }

    @Test("device=NAME waits for the claim, follows the device to a new address, and lets go of one claimed by another")
    func byName() {
        var reader = NMEA2000HeadingReader(selection: .name(DeviceName(rawValue: 0xC050_A003_1131_25EF)))
        #expect(Self.heading(reader.read(CANRecording.vesselHeading(20, true: false, source: 105))) == nil)
        _ = reader.read(Self.claim(0xC050_A003_1131_25EF, from: 105))
        #expect(reader.takeNotice() == "NAME 0xC050A003113125EF is at address 105: taking its headings")
        let reading = Self.heading(reader.read(CANRecording.vesselHeading(20, true: false, source: 105)))
        #expect(reading?.magneticHeading.map { abs($0 - 20) < 0.01 } == true)
        #expect(reading?.kind == .compass)
        // Power-up: another device claims 105, ours moves to 110.
        _ = reader.read(Self.claim(0xC050_A000_E7E0_2C74, from: 105))
        #expect(reader.takeNotice()?.contains("waiting for 0xC050A003113125EF") == true)
        #expect(Self.heading(reader.read(CANRecording.vesselHeading(21, true: false, source: 105))) == nil)
        _ = reader.read(Self.claim(0xC050_A003_1131_25EF, from: 110))
        #expect(Self.heading(reader.read(CANRecording.vesselHeading(22, true: false, source: 110))) != nil)
    }

    @Test("a device's error value is said, not a heading; COG from a device that sends no heading; pitch and roll join the heading")
    func errorsCourseAttitude() {
        var reader = NMEA2000HeadingReader(selection: .address(7))
        let outOfRange = CANFrame(identifier: CANIdentifier(priority: 2, pgn: 127_250, source: 7), bytes: [0, 0xFE, 0xFF, 0xFF, 0x7F, 0xFF, 0x7F, 0xFC])!
        guard case .headingError(let reason) = reader.read(outOfRange) else {
            Issue.record("an out-of-range heading must be said")
            return
        }
        #expect(reason.contains("out-of-range"))
        let course = CANFrame(identifier: CANIdentifier(priority: 2, pgn: 129_026, source: 7), bytes: [0, 0xFC, 0x10, 0x3B, 0xF4, 0x01, 0xFF, 0xFF])!
        // 7 has sent a Vessel Heading (out of range, but sent): its course is not taken.
        if case .course = reader.read(course) { Issue.record("a heading device's course is not a heading") }
        var gnss = NMEA2000HeadingReader(selection: .address(33))
        let fromGNSS = CANFrame(identifier: CANIdentifier(priority: 2, pgn: 129_026, source: 33), bytes: [0, 0xFC, 0x10, 0x3B, 0xF4, 0x01, 0xFF, 0xFF])!
        guard case .course(let reading, let speed) = gnss.read(fromGNSS) else {
            Issue.record("a GNSS's course is its heading of last resort")
            return
        }
        #expect(speed == 5)
        #expect(reading.kind == .courseOverGround)
        let attitude = CANFrame(identifier: CANIdentifier(priority: 2, pgn: 127_257, source: 7), bytes: [0, 0xFF, 0x7F, 0xE8, 0x03, 0x18, 0xFC, 0xFF])!
        _ = reader.read(attitude)
        let withAttitude = Self.heading(reader.read(CANRecording.vesselHeading(30, source: 7)))
        #expect(withAttitude?.pitch.map { abs($0 - 5.7296) < 0.001 } == true)
        #expect(withAttitude?.roll.map { abs($0 + 5.7296) < 0.001 } == true)
    }

    @Test("device= reads an address or a NAME, and refuses the rest")
    func selectionParsing() {
        #expect(NMEA2000DeviceSelection(parsing: "7") == .address(7))
        #expect(NMEA2000DeviceSelection(parsing: "0x69") == .address(105))
        #expect(NMEA2000DeviceSelection(parsing: "0xC050A003113125EF") == .name(DeviceName(rawValue: 0xC050_A003_1131_25EF)))
        #expect(NMEA2000DeviceSelection(parsing: "254") == nil)
        #expect(NMEA2000DeviceSelection(parsing: "255") == nil)
        #expect(NMEA2000DeviceSelection(parsing: "compass") == nil)
        #expect(NMEA2000DeviceSelection(parsing: "0x") == nil)
        #expect(NMEA2000DeviceSelection(parsing: "-1") == nil)
    }

    @Test("stream URLs: socketcan://, format=actisense and format=ydraw, and what is refused")
    func endpoints() throws {
        #expect(try NMEAStreamEndpoint(parsing: "socketcan://can0").transport == .socketCAN(interface: "can0"))
        #expect(try NMEAStreamEndpoint(parsing: "socketcan://can0").description == "socketcan://can0")
        let ngt = try NMEAStreamEndpoint(parsing: "serial:///dev/ttyUSB0?baud=115200&format=actisense")
        #expect(ngt.framing == .actisense)
        #expect(ngt.description == "serial:///dev/ttyUSB0?baud=115200&format=actisense")
        #expect(try NMEAStreamEndpoint(parsing: "udp://:1457?format=ydraw").framing == .ydraw)
        #expect(try NMEAStreamEndpoint(parsing: "tcp://192.168.4.1:1457?format=ydraw").description == "tcp://192.168.4.1:1457?format=ydraw")
        #expect(throws: NMEAStreamEndpoint.ParseError.self) { try NMEAStreamEndpoint(parsing: "udp://:1457?format=actisense") }
        // An NGT-1's own rate by default; baud=auto listens for NMEA 0183, so it is refused.
        #expect(try NMEAStreamEndpoint(parsing: "serial:///dev/ttyUSB0?format=actisense").transport == .serial(path: "/dev/ttyUSB0", baud: .fixed(115_200)))
        #expect(throws: NMEAStreamEndpoint.ParseError.self) { try NMEAStreamEndpoint(parsing: "serial:///dev/ttyUSB0?baud=auto&format=actisense") }
        #expect(throws: NMEAStreamEndpoint.ParseError.self) { try NMEAStreamEndpoint(parsing: "socketcan://") }
        #expect(throws: NMEAStreamEndpoint.ParseError.self) { try NMEAStreamEndpoint(parsing: "socketcan://can0/../x") }
        #expect(throws: NMEAStreamEndpoint.ParseError.self) { try NMEAStreamEndpoint(parsing: "socketcan://can0?baud=250000") }
        #expect(throws: NMEAStreamEndpoint.ParseError.self) { try NMEAStreamEndpoint(parsing: "tcp://h:1?format=socketcan") }
    }
}
