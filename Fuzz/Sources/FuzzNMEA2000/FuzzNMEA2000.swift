// headingd — libFuzzer target: NMEA 2000 frames, fast packets and each transport's framing.
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import NMEA2000

/// The input's first byte chooses how it is read; the rest is the hostile peer's bytes:
/// - as an Actisense NGT-1's stream, in reads of the size the first byte chooses: every message to
///   the heading reader (the way a serial NGT-1 source reads it);
/// - as 12-byte records of identifier, length and data: CAN frames to the fast-packet assembler and
///   the heading reader (the way SocketCAN's frames come);
/// - as lines, each in each CAN text form (candump, YD RAW, canboat's CSV) and through the line
///   decoder that replays and YD RAW feeds use.
/// - as 9-byte records: numbers for every field a node sends, and claims and requests for its
///   address claim (issue 39).
/// What must hold whatever the bytes: no trap, messages within their bounds, headings on the circle.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNMEA2000(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let step = Int(data[0] % 32) + 1
    var reader = NMEA2000HeadingReader(selection: data[0] & 0x40 == 0 ? .firstHeard : .address(data[0] & 0x3F))
    func check(_ output: NMEA2000HeadingReader.Output) {
        switch output {
        case .heading(let reading), .course(let reading, _):
            for value in [reading.trueHeading, reading.magneticHeading].compactMap({ $0 }) {
                precondition(value.isFinite && value >= 0 && value < 360.01, "heading \(value) off the circle")
            }
        default: break
        }
    }
    // Actisense frames.
    var splitter = ActisenseFrameSplitter()
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + step)
        splitter.append(UnsafeBufferPointer(rebasing: bytes[start..<end])) { piece in
            if case .message(let message, _) = piece {
                precondition(message.payload.count <= 255, "an Actisense message of \(message.payload.count) bytes")
                check(reader.read(message))
            }
        }
        precondition(splitter.pendingCount <= ActisenseFrameSplitter.maximumFrameLength)
        start = end
    }
    // CAN frames: identifier (4), length (1), data (7): Product Information half the time.
    var assembler = FastPacketAssembler(maximumSeries: 4)
    var offset = 0
    while offset + 12 <= bytes.count {
        var identifier = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        if identifier & 1 == 0 { identifier = 0x19F0_1400 | (identifier >> 24) }
        var payload: UInt64 = 0
        for index in 0..<7 { payload |= UInt64(bytes[offset + 5 + index]) << (8 * UInt64(index + 1)) }
        payload |= UInt64(bytes[offset + 4] >> 4)
        let frame = CANFrame(identifier: CANIdentifier(identifier), count: Int(bytes[offset + 4] % 9), data: payload)
        assembler.accept(frame) { precondition($0.payload.count <= FastPacketAssembler.maximumLength) }
        check(reader.read(frame))
        offset += 12
    }
    // Lines, in every CAN text form, and through the line decoder.
    var text = CANTextLineDecoder()
    var decoder = HeadingLineDecoder(path: nil, sourceName: "fuzz", timestamping: .reception)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var number = 0
    for line in bytes.split(separator: 0x0A) {
        let piece = UnsafeBufferPointer(rebasing: line)
        for format in CANTextFormat.allCases { _ = try? text.decode(piece, format: format) }
        number += 1
        if let heading = decoder.decode(piece, number: number, receivedAt: now).report?.heading {
            for value in [heading.trueHeading, heading.magneticHeading].compactMap({ $0 }) {
                precondition(value.isFinite && value >= 0 && value < 360, "heading \(value) off the circle")
            }
        }
    }
    // What a node sends, from hostile numbers, and its address claim among hostile peers: each
    // 9 bytes a double (encoded into every field) and a byte (a sequence number, and a claim's
    // source or a request's PGN). The payloads are 8 bytes whatever the number, a heading read
    // back is on the circle or a special value, and the claim's address is always 0-251 or 254.
    var claim = AddressClaim(name: DeviceName(uniqueNumber: 0x1234, manufacturerCode: 2046, deviceFunction: 160, deviceClass: 40), preferred: data[0])
    _ = claim.start(at: .zero)
    // And the whole node among the same hostile peers: every answer bounded, nothing but claims
    // until the claim is won, every frame from its own address (254 only for a claim).
    var node = NMEA2000Node(
        identity: .init(name: claim.name, model: "headingd", softwareVersion: "fuzz", serialCode: "4660"), preferred: data[0],
        heartbeatInterval: .seconds(1)
    )
    _ = node.start(at: .zero)
    var time = Duration.zero
    var index = 0
    while index + 9 <= bytes.count {
        var raw: UInt64 = 0
        for byte in 0..<8 { raw |= UInt64(bytes[index + byte]) << (8 * UInt64(byte)) }
        let field = NMEA2000Field<Double>.value(Double(bitPattern: raw))
        let last = bytes[index + 8]
        let heading = VesselHeading(sequence: last, heading: field, deviation: field, variation: field, reference: .true).payload
        for payload in [
            heading, RateOfTurn(sequence: last, rate: field).payload, Attitude(sequence: last, yaw: field, pitch: field, roll: field).payload,
            MagneticVariation(sequence: last, source: .worldMagneticModel(edition: Int(truncatingIfNeeded: raw)), ageOfService: .value(Int(truncatingIfNeeded: raw)), variation: field).payload,
        ] {
            precondition(payload.count == 8, "a payload of \(payload.count) bytes")
        }
        if let read = heading.withUnsafeBufferPointer({ VesselHeading(NMEA2000Message(priority: 2, pgn: NMEA2000PGN.vesselHeading, source: 1, payload: $0)) }),
            let degrees = read.heading.value {
            precondition(degrees >= 0 && degrees < 360, "a heading sent as \(degrees)")
        }
        time += .milliseconds(Int(bytes[index] % 8))
        let actions = last & 0x80 == 0
            ? claim.heardClaim(from: last, name: DeviceName(rawValue: raw), at: time)
            : claim.heardRequest(for: UInt32(truncatingIfNeeded: raw) & 0x3FFFF, to: bytes[index + 1])
        _ = claim.tick(at: time)
        precondition(claim.address <= AddressClaim.highestAddress || claim.address == AddressClaim.nullAddress, "address \(claim.address)")
        precondition(!claim.mayTransmit || claim.state == .claimed, "transmitting while \(claim.state)")
        for case .sendClaim(let from) in actions { precondition(from == claim.address, "a claim from \(from) while at \(claim.address)") }
        let pgn = last & 0x80 == 0 ? NMEA2000PGN.addressClaim : NMEA2000PGN.isoRequest
        let payload = Array(bytes[index..<(index + (last & 0x80 == 0 ? 8 : 3))])
        var out = payload.withUnsafeBufferPointer {
            node.receive(NMEA2000Message(priority: 6, pgn: pgn, source: last & 0x7F | bytes[index + 1] & 0x80, destination: bytes[index + 1], payload: $0), at: time)
        }
        out += node.tick(at: time)
        out += node.send(NMEA2000Node.HeadingSample(trueHeading: field.value, variation: field.value, rateOfTurn: field.value, pitch: field.value), at: time)
        precondition(out.count <= 64, "\(out.count) frames for one message")
        for frame in out {
            precondition(frame.count <= 8, "a frame of \(frame.count) bytes")
            let isClaim = frame.identifier.pgn == NMEA2000PGN.addressClaim
            precondition(isClaim || node.claim.mayTransmit, "\(frame) while \(node.claim.state)")
            precondition(frame.identifier.source == node.address || (isClaim && frame.identifier.source <= AddressClaim.nullAddress), "\(frame) from another address")
        }
        index += 9
    }
    return 0
}
