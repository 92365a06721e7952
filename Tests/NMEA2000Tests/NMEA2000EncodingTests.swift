// headingd — NMEA2000 tests
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import NMEA2000

/// What headingd sends on the bus (issue 39), checked against what real devices sent (canboat's
/// recordings) and against this module's decoders.
struct NMEA2000EncodingTests {
    /// Every Vessel Heading in a recording, as its payload.
    static func headingPayloads(_ name: String) throws -> [[UInt8]] {
        var found: [[UInt8]] = []
        try N2KFixtures.forEachMessage(in: name) { message in
            if message.pgn == NMEA2000PGN.vesselHeading, message.payload.count == 8 { found.append(Array(message.payload)) }
        }
        return found
    }

    static func decode<T>(_ pgn: UInt32, _ payload: [UInt8], _ decoder: (NMEA2000Message) -> T?) -> T? {
        payload.withUnsafeBufferPointer { decoder(NMEA2000Message(priority: 2, pgn: pgn, source: 1, payload: $0)) }
    }

    @Test("Vessel Heading: what Airmar, Maretron and a YD gateway sent, decoded and encoded again, is the same bytes", arguments: [
        "dirona-two-compasses.csv", "merrimac-ydwg-2020.ydraw", "dirona-parity.candump.log",
    ])
    func vesselHeadingAsRealDevicesSendIt(recording: String) throws {
        let payloads = try Self.headingPayloads(recording)
        #expect(payloads.count > 50)
        for payload in payloads {
            let heading = try #require(Self.decode(NMEA2000PGN.vesselHeading, payload, VesselHeading.init))
            let again = heading.payload
            // The fields exactly; of the last byte, the reference (its reserved bits are ones here, as the NMEA2000 library writes them).
            #expect(Array(again[0..<7]) == Array(payload[0..<7]), "\(payload) → \(heading) → \(again)")
            #expect(again[7] & 0x03 == payload[7] & 0x03 && again[7] | 0x03 == 0xFF)
        }
    }

    @Test("Vessel Heading: rounded to the field, never wrapped; 2π is 0, off the circle is out of range")
    func vesselHeadingEdges() throws {
        func heading(_ degrees: Double) -> NMEA2000Field<Double>? {
            Self.decode(NMEA2000PGN.vesselHeading, VesselHeading(sequence: 7, heading: .value(degrees), reference: .true).payload, VesselHeading.init)?.heading
        }
        for degrees in stride(from: 0.0, to: 360, by: 0.37) {
            #expect(abs(heading(degrees)!.value! - degrees) <= 0.0029, "\(degrees)")  // half of 1/10000 rad
        }
        #expect(heading(359.9999) == .value(0))
        #expect(heading(360) == .outOfRange)
        #expect(heading(-0.5) == .outOfRange)
        #expect(heading(.nan) == .outOfRange)
        let none = VesselHeading(sequence: 255, heading: .notAvailable, reference: .magnetic)
        #expect(none.payload == [0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0x7F, 0xFD])
        let full = VesselHeading(sequence: 3, heading: .value(90), deviation: .value(-1.5), variation: .value(2.75), reference: .true)
        let decoded = try #require(Self.decode(NMEA2000PGN.vesselHeading, full.payload, VesselHeading.init))
        #expect(decoded.sequence == 3 && decoded.reference == .true)
        #expect(abs(decoded.deviation.value! - -1.5) < 0.003 && abs(decoded.variation.value! - 2.75) < 0.003)
        // A deviation beyond the field's ±187° is out of range, not wrapped to a small number.
        let wild = VesselHeading(sequence: 0, heading: .value(1), deviation: .value(1e9), reference: .true)
        #expect(Self.decode(NMEA2000PGN.vesselHeading, wild.payload, VesselHeading.init)?.deviation == .outOfRange)
    }

    @Test("Rate of turn, attitude and variation: the decoders read back what was written")
    func otherPGNsRoundTrip() throws {
        let rate = try #require(Self.decode(NMEA2000PGN.rateOfTurn, RateOfTurn(sequence: 9, rate: .value(57.2958)).payload, RateOfTurn.init))
        #expect(rate.sequence == 9 && abs(rate.rate.value! - 57.2958) < 1e-5)
        #expect(RateOfTurn(sequence: 9, rate: .value(57.29578)).payload == [9, 0x00, 0x48, 0xE8, 0x01, 0xFF, 0xFF, 0xFF])  // 1 rad/s, canboat's units
        let attitude = Attitude(sequence: 1, yaw: .notAvailable, pitch: .value(5.7296), roll: .value(-5.7296))
        #expect(attitude.payload == [1, 0xFF, 0x7F, 0xE8, 0x03, 0x18, 0xFC, 0xFF])  // the decoding test's bytes
        let variation = MagneticVariation(sequence: 2, source: .worldMagneticModel(edition: 2025), ageOfService: .value(20_454), variation: .value(-14.954))
        let read = try #require(Self.decode(NMEA2000PGN.magneticVariation, variation.payload, MagneticVariation.init))
        #expect(read.source == .worldMagneticModel(edition: 2025) && read.ageOfService == .value(20_454))
        #expect(abs(read.variation.value! - -14.954) < 0.003)
        #expect(variation.payload[1] == 0xF9 && variation.payload[6...] == [0xFF, 0xFF])
        #expect(MagneticVariation.Source.manual.code == 0 && MagneticVariation.Source.worldMagneticModel(edition: 2003).code == 15)
    }

    @Test("NAME: the notes' worked example and a Signal K node's capture, byte for byte")
    func deviceName() {
        let example = DeviceName(uniqueNumber: 0x1234, manufacturerCode: 2046, deviceFunction: 140, deviceClass: 60)
        #expect(example.payload == [0x34, 0x12, 0xC0, 0xFF, 0x00, 0x8C, 0x78, 0xC0])
        let signalK = DeviceName(uniqueNumber: 475_657, manufacturerCode: 999, deviceFunction: 130, deviceClass: 25)
        // The capture's class byte is 0x33: its reserved bit 48 set, which the NMEA2000 library (and this) writes as 0.
        #expect(signalK.payload == [0x09, 0x42, 0xE7, 0x7C, 0x00, 0x82, 0x32, 0xC0])
        // The Maretron heading sensor of the decoding test, made from its fields.
        let maretron = DeviceName(uniqueNumber: 1_123_823, manufacturerCode: 137, deviceInstance: 3, deviceFunction: 160, deviceClass: 40)
        #expect(maretron.description == "0xC050A003113125EF" && maretron.isArbitraryAddressCapable)
        // Each field masked to its width: nothing spills into the next.
        let masked = DeviceName(uniqueNumber: .max, manufacturerCode: .max, deviceFunction: 0, deviceClass: .max, systemInstance: .max, industryGroup: .max, arbitraryAddressCapable: false)
        #expect(masked.uniqueNumber == 0x1F_FFFF && masked.manufacturerCode == 0x7FF && masked.deviceClass == 0x7F)
        #expect(masked.deviceFunction == 0 && masked.systemInstance == 15 && masked.industryGroup == 7 && !masked.isArbitraryAddressCapable)
    }

    @Test("Fast packets: split as the assembler joins them, every frame 8 bytes, 224 bytes refused", arguments: [0, 1, 6, 7, 13, 14, 134, 223])
    func fastPacketRoundTrip(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 5) }
        let frames = try #require(FastPacketSplitter.frames(of: payload, sequence: 5))
        #expect(frames.count == 1 + (max(0, length - 6) + 6) / 7)
        #expect(frames.allSatisfy { $0.count == 8 && $0[0] >> 5 == 5 })
        var assembler = FastPacketAssembler()
        var joined: [[UInt8]] = []
        let identifier = CANIdentifier(priority: 6, pgn: NMEA2000PGN.productInformation, source: 42)
        for frame in frames {
            let drop = assembler.accept(try #require(CANFrame(identifier: identifier, bytes: frame))) { joined.append(Array($0.payload)) }
            #expect(drop == nil)
        }
        #expect(joined == [payload])
        #expect(FastPacketSplitter.frames(of: [UInt8](repeating: 0, count: 224), sequence: 0) == nil)
    }

    @Test("Product Information: 134 bytes, its texts cut at 32 and read back")
    func productInformation() throws {
        let information = ProductInformation(
            databaseVersion: 2.1, productCode: 38, model: "headingd", softwareVersion: "0.38.0",
            modelVersion: String(repeating: "x", count: 40), serialCode: "1193046"
        )
        let payload = information.payload
        #expect(payload.count == 134)
        let read = try #require(Self.decode(NMEA2000PGN.productInformation, payload, ProductInformation.init))
        #expect(read.databaseVersion.map { abs($0 - 2.1) < 1e-9 } == true && read.productCode == 38)
        #expect(read.model == "headingd" && read.softwareVersion == "0.38.0" && read.serialCode == "1193046")
        #expect(read.modelVersion == String(repeating: "x", count: 32))
    }

    @Test("The node's duties: an ISO request read and NAKed, the heartbeat as the NMEA2000 library writes it, PGN lists")
    func nodeDuties() throws {
        // A plotter asking node 35 for Product Information (canboat's "ISO Request" layout: the PGN in 3 bytes).
        let request = try #require(Self.decode(NMEA2000PGN.isoRequest, [0x14, 0xF0, 0x01], ISORequest.init))
        #expect(request.pgn == 126_996 && request.payload == [0x14, 0xF0, 0x01])
        #expect(Self.decode(NMEA2000PGN.isoRequest, [0x14, 0xF0], ISORequest.init) == nil)
        #expect(ISORequest(pgn: 130_000).negativeAcknowledgement == [1, 0xFF, 0xFF, 0xFF, 0xFF, 0xD0, 0xFB, 0x01])
        #expect(Heartbeat(sequence: 7).payload == [0x60, 0xEA, 7, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Heartbeat(interval: 1000, sequence: 253).payload[0...2] == [0xE8, 0x03, 0])
        let transmit = PGNList(function: .transmit, pgns: [60_928, 127_250])
        #expect(transmit.payload == [0, 0x00, 0xEE, 0x00, 0x12, 0xF1, 0x01])
        #expect(PGNList(function: .receive, pgns: Array(repeating: 59_904, count: 100)).payload.count == 1 + 74 * 3)
        #expect(NMEA2000PGN.isFastPacket(NMEA2000PGN.pgnList) && NMEA2000PGN.isFastPacket(NMEA2000PGN.configurationInformation))
        #expect(!NMEA2000PGN.isFastPacket(NMEA2000PGN.isoRequest) && !NMEA2000PGN.isFastPacket(NMEA2000PGN.heartbeat))
    }

    @Test("Gateways: a YD RAW line as the manual writes it and the line decoder reads back; an NGT-1's send command")
    func gatewayForms() throws {
        let frame = try #require(CANFrame(identifier: CANIdentifier(priority: 2, pgn: NMEA2000PGN.vesselHeading, source: 35), bytes: [0xFF, 0x12, 0x34]))
        #expect(frame.yachtDevicesRawLine == "09F11223 FF 12 34\r\n")
        // The gateway's echo of it, as a YD RAW source reads it.
        var decoder = CANTextLineDecoder()
        let echo = Array("00:29:58.627 T 09F11223 FF 12 34".utf8)
        let decoded = try echo.withUnsafeBufferPointer { try decoder.decode($0, format: .yachtDevicesRaw) }
        guard case .frame(let back) = decoded.content else { Issue.record("\(decoded.content)"); return }
        #expect(back == frame)
        // 0x94: priority, PGN, destination, length, data; the DLE in the data doubled, the body summing to 0.
        let send = ActisenseFrameSplitter.encodeSend(priority: 2, pgn: 127_250, payload: [0x10, 0x01])
        #expect(send == [0x10, 0x02, 0x94, 0x08, 0x02, 0x12, 0xF1, 0x01, 0xFF, 0x02, 0x10, 0x10, 0x01, 0x4C, 0x10, 0x03])
    }
}
