// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import HeadingDaemon
import HeadingKit
import HeadingKitTesting
import NMEA2000
import Testing

/// The node's frames are hidden on its own bus only: a source there shares its presence, a source
/// on another bus does not, and a device at the node's address there is a device.
@Suite struct NMEA2000BusesTests {
    static let node: UInt64 = 0xC050_A000_E7E0_2C74

    @Test func aSourceOnTheNodesBusSharesItsPresenceAndAnotherBusDoesNot() throws {
        let buses = NMEA2000Buses()
        let can0 = buses.node(on: .socketCAN("can0"))
        #expect(buses.node(readBy: try NMEAStreamEndpoint(parsing: "socketcan://can0")) === can0)
        #expect(buses.node(readBy: try NMEAStreamEndpoint(parsing: "socketcan://can1")) !== can0)
        // A YD RAW gateway's datagrams say no gateway: every one is the node's bus.
        let gateway = buses.node(on: .yachtDevicesRaw(host: "192.168.4.1", port: 1457))
        #expect(buses.node(readBy: try NMEAStreamEndpoint(parsing: "udp://:1456?format=ydraw")) === gateway)
        #expect(buses.node(readBy: try NMEAStreamEndpoint(parsing: "tcp://192.168.4.1:1457?format=ydraw")) === gateway)
        // An NGT-1 by a link's name and by its own.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("buses-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = directory.appendingPathComponent("ttyUSB0").path
        let link = directory.appendingPathComponent("by-id-ngt1").path
        _ = FileManager.default.createFile(atPath: device, contents: nil)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: device)
        let ngt1 = buses.node(on: .actisense(device: link, baud: 115_200))
        #expect(buses.node(readBy: try NMEAStreamEndpoint(parsing: "serial://\(device)?baud=115200&format=actisense")) === ngt1)
        // NMEA 0183 is no NMEA 2000 bus.
        #expect(buses.node(readBy: try NMEAStreamEndpoint(parsing: "tcp://192.168.4.1:10110")) == nil)
    }

    @Test func theNodesFramesAreHiddenOnItsBusOnly() throws {
        let buses = NMEA2000Buses()
        buses.node(on: .socketCAN("can0")).set(address: 35, name: Self.node)
        var onCan0 = NMEA2000HeadingReader()
        onCan0.localNode = buses.node(readBy: try NMEAStreamEndpoint(parsing: "socketcan://can0"))
        var onCan1 = NMEA2000HeadingReader()
        onCan1.localNode = buses.node(readBy: try NMEAStreamEndpoint(parsing: "socketcan://can1"))
        #expect(Self.heading(onCan0.read(CANRecording.vesselHeading(10, source: 35))) == nil)
        #expect(Self.heading(onCan1.read(CANRecording.vesselHeading(10, source: 35))) != nil, "a device at 35 on can1 is a device")
        // The node leaves can0: a device that claims 35 there is heard.
        buses.node(on: .socketCAN("can0")).clear()
        #expect(Self.heading(onCan0.read(CANRecording.vesselHeading(12, source: 35))) != nil)
    }

    private static func heading(_ output: NMEA2000HeadingReader.Output) -> HeadingReading? {
        if case .heading(let reading) = output { return reading }
        return nil
    }
}
