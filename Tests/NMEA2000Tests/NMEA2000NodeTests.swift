// headingd — NMEA2000 tests
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import NMEA2000

/// The node of issue 39, pure, on an injected clock: what a plotter sees of it.
struct NMEA2000NodeTests {
    static let identity = NMEA2000Node.Identity(
        name: DeviceName(uniqueNumber: 0x1234, manufacturerCode: 2046, deviceFunction: 160, deviceClass: 40),
        model: "headingd", softwareVersion: "0.1.0", serialCode: "4660", installationDescription: "mast head"
    )

    /// A node that has claimed 35 (at 0.25 s), and the frames it wrote doing so.
    static func claimed() -> (NMEA2000Node, [CANFrame]) {
        var node = NMEA2000Node(identity: identity, preferred: 35, heartbeatInterval: .seconds(60))
        var frames = node.start(at: .zero)
        frames += node.tick(at: .milliseconds(250))
        return (node, frames)
    }

    /// The messages in `frames`, joined where they are fast packets.
    static func messages(_ frames: [CANFrame]) -> [(pgn: UInt32, source: UInt8, destination: UInt8, payload: [UInt8])] {
        var assembler = FastPacketAssembler()
        var found: [(UInt32, UInt8, UInt8, [UInt8])] = []
        for frame in frames {
            if NMEA2000PGN.isFastPacket(frame.identifier.pgn) {
                assembler.accept(frame) { found.append(($0.pgn, $0.source, $0.destination, Array($0.payload))) }
            } else {
                found.append((frame.identifier.pgn, frame.identifier.source, frame.identifier.destination, frame.bytes))
            }
        }
        return found
    }

    static func request(_ pgn: UInt32, from source: UInt8, to destination: UInt8) -> [UInt8] { ISORequest(pgn: pgn).payload }

    static func receive(_ node: inout NMEA2000Node, request pgn: UInt32, from source: UInt8, to destination: UInt8, at now: Duration) -> [CANFrame] {
        ISORequest(pgn: pgn).payload.withUnsafeBufferPointer {
            node.receive(NMEA2000Message(priority: 6, pgn: NMEA2000PGN.isoRequest, source: source, destination: destination, payload: $0), at: now)
        }
    }

    @Test func itClaimsSaysNothingElseFor250MillisecondsThenAnnouncesItself() throws {
        var node = NMEA2000Node(identity: Self.identity, preferred: 35)
        let claim = node.start(at: .zero)
        #expect(claim.count == 1 && claim[0].identifier.rawValue == 0x18EE_FF23 && claim[0].bytes == Self.identity.name.payload)
        let early = node.send(NMEA2000Node.HeadingSample(trueHeading: 10), at: .milliseconds(100))
        #expect(early.isEmpty, "no heading while claiming")
        let tooSoon = Self.receive(&node, request: NMEA2000PGN.productInformation, from: 7, to: 35, at: .milliseconds(120))
        #expect(tooSoon.isEmpty, "no answer but a claim while claiming")
        let asked = Self.receive(&node, request: NMEA2000PGN.addressClaim, from: 254, to: 255, at: .milliseconds(130))
        #expect(asked.map(\.identifier.pgn) == [NMEA2000PGN.addressClaim], "a request for the claim is answered even now")
        #expect(node.nextDeadline == .milliseconds(250))
        let won = Self.messages(node.tick(at: .milliseconds(250)))
        #expect(won.map(\.pgn) == [NMEA2000PGN.productInformation, NMEA2000PGN.heartbeat])
        let product = try #require(won[0].payload.withUnsafeBufferPointer { ProductInformation(NMEA2000Message(priority: 6, pgn: 126_996, source: 35, payload: $0)) })
        #expect(product.model == "headingd" && product.softwareVersion == "0.1.0" && product.serialCode == "4660")
        #expect(won[1].payload[0...1] == [0x60, 0xEA])
    }

    @Test func aHeadingIsTrueWithItsVariationAndItsPGNsShareOneSID() throws {
        var (node, _) = Self.claimed()
        let sample = NMEA2000Node.HeadingSample(
            trueHeading: 93.25, magneticHeading: 90.5, deviation: -1.5, variation: 2.75, variationSource: .worldMagneticModel(edition: 2025),
            rateOfTurn: 1.5, pitch: 2, roll: -4.5
        )
        let first = Self.messages(node.send(sample, at: .seconds(1)))
        #expect(first.map(\.pgn) == [127_250, 127_251, 127_257, 127_258])
        #expect(Set(first.map { $0.payload[0] }).count == 1, "one SID")
        let heading = try #require(first[0].payload.withUnsafeBufferPointer { VesselHeading(NMEA2000Message(priority: 2, pgn: 127_250, source: 35, payload: $0)) })
        #expect(heading.reference == .true && abs(heading.heading.value! - 93.25) < 0.003 && abs(heading.variation.value! - 2.75) < 0.003)
        // The next heading: a new SID, and the variation not again within the second.
        let second = Self.messages(node.send(sample, at: .seconds(1) + .milliseconds(100)))
        #expect(second.map(\.pgn) == [127_250, 127_251, 127_257] && second[0].payload[0] == first[0].payload[0] + 1)
        #expect(Self.messages(node.send(sample, at: .seconds(2))).map(\.pgn).last == 127_258)
        // Magnetic only: sent as magnetic, never as true.
        let magnetic = Self.messages(node.send(NMEA2000Node.HeadingSample(magneticHeading: 200), at: .seconds(3)))
        #expect(magnetic.count == 1 && magnetic[0].payload[7] & 0x03 == 1)
    }

    @Test func itAnswersWhatAPlotterAsksAndNAKsTheRest() throws {
        var (node, _) = Self.claimed()
        let lists = Self.messages(Self.receive(&node, request: NMEA2000PGN.pgnList, from: 7, to: 35, at: .seconds(1)))
        #expect(lists.map(\.pgn) == [126_464, 126_464] && lists.allSatisfy { $0.destination == 7 })
        #expect(lists[0].payload[0] == 0 && lists[1].payload[0] == 1)
        #expect((lists[0].payload.count - 1) / 3 == NMEA2000Node.transmitted.count)
        let broadcast = Self.messages(Self.receive(&node, request: NMEA2000PGN.productInformation, from: 7, to: 255, at: .seconds(2)))
        #expect(broadcast.map(\.pgn) == [126_996])
        let configuration = Self.messages(Self.receive(&node, request: NMEA2000PGN.configurationInformation, from: 7, to: 35, at: .seconds(3)))
        #expect(configuration.count == 1 && Array(configuration[0].payload[0...10]) == [11, 1] + Array("mast head".utf8))
        let nak = Self.messages(Self.receive(&node, request: 130_306, from: 7, to: 35, at: .seconds(4)))
        #expect(nak.count == 1 && nak[0].pgn == 59_392 && nak[0].destination == 7 && nak[0].payload == [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0xFD, 0x01])
        #expect(Self.receive(&node, request: 130_306, from: 7, to: 255, at: .seconds(5)).isEmpty, "a broadcast request for another PGN: no NAK")
        #expect(Self.receive(&node, request: NMEA2000PGN.productInformation, from: 7, to: 36, at: .seconds(6)).isEmpty, "for another node")
        // Its own request, read back from the bus: not answered.
        #expect(Self.receive(&node, request: NMEA2000PGN.productInformation, from: 35, to: 255, at: .seconds(7)).isEmpty)
        // Fast packets of one PGN count their sequence up.
        let again = Self.receive(&node, request: NMEA2000PGN.productInformation, from: 7, to: 255, at: .seconds(8))
        #expect(again.first.map { $0[0] >> 5 } == 2)
    }

    @Test func losingItsAddressItMovesClaimsAgainAndHoldsItsHeadingsMeanwhile() throws {
        var (node, _) = Self.claimed()
        let rival = DeviceName(rawValue: Self.identity.name.rawValue - 1)
        let moved = rival.payload.withUnsafeBufferPointer {
            node.receive(NMEA2000Message(priority: 6, pgn: NMEA2000PGN.addressClaim, source: 35, payload: $0), at: .seconds(5))
        }
        #expect(moved.count == 1 && moved[0].identifier.source == 36 && node.address == 36)
        let held = node.send(NMEA2000Node.HeadingSample(trueHeading: 1), at: .seconds(5) + .milliseconds(100))
        #expect(held.isEmpty)
        _ = node.tick(at: .seconds(5) + .milliseconds(250))
        let sent = node.send(NMEA2000Node.HeadingSample(trueHeading: 1), at: .seconds(5) + .milliseconds(300))
        #expect(sent.map(\.identifier.source) == [36])
    }

    @Test func theHeartbeatKeepsItsBeatThroughLateTicks() {
        var (node, frames) = Self.claimed()
        var beats = frames.filter { $0.identifier.pgn == NMEA2000PGN.heartbeat }.map { (Duration.milliseconds(250), $0[2]) }
        for second in stride(from: 1, through: 200, by: 7) {
            let now = Duration.seconds(second)
            beats += node.tick(at: now).filter { $0.identifier.pgn == NMEA2000PGN.heartbeat }.map { (now, $0[2]) }
        }
        // Due at 0.25, 60.25, 120.25 and 180.25 s; the ticks come at 1, 8, … s: each at the first tick after it is due.
        #expect(beats.map(\.0) == [.milliseconds(250), .seconds(64), .seconds(127), .seconds(183)])
        #expect(beats.map(\.1) == [0, 1, 2, 3])
        #expect(node.nextDeadline == .seconds(240) + .milliseconds(250))
    }

    /// The first heartbeat after a claim won goes out behind 126996's frames: the beat counts from
    /// when it was written, so the next gap on the bus is the interval, not the interval less the
    /// time those frames took. Later heartbeats written late keep their beat.
    @Test func theBeatStartsWhenTheFirstHeartbeatIsWritten() {
        var node = NMEA2000Node(identity: Self.identity, preferred: 35, heartbeatInterval: .seconds(2))
        _ = node.start(at: .zero)
        let won = node.tick(at: .milliseconds(250))
        #expect(won.last?.identifier.pgn == NMEA2000PGN.heartbeat)
        #expect(node.nextDeadline == .milliseconds(2250), "due from the tick until it is written")
        node.heartbeatSent(at: .milliseconds(450))
        #expect(node.nextDeadline == .milliseconds(2450))
        #expect(node.tick(at: .milliseconds(2449)).isEmpty)
        #expect(node.tick(at: .milliseconds(2450)).map(\.identifier.pgn) == [NMEA2000PGN.heartbeat])
        // The second written 100 ms late: the third is still due on the beat.
        node.heartbeatSent(at: .milliseconds(2550))
        #expect(node.nextDeadline == .milliseconds(4450))
        // A claim made again starts the beat again from its first heartbeat's write.
        _ = node.start(at: .seconds(5))
        _ = node.tick(at: .seconds(5) + .milliseconds(250))
        node.heartbeatSent(at: .seconds(5) + .milliseconds(300))
        #expect(node.nextDeadline == .seconds(7) + .milliseconds(300))
    }

    @Test func dataOnlyItClaimsNothingAnswersNothingAndSendsHeadingsAtOnce() {
        var node = NMEA2000Node(identity: Self.identity, preferred: 35, dataOnly: true)
        #expect(node.start(at: .zero).isEmpty)
        #expect(node.nextDeadline == nil && node.tick(at: .seconds(120)).isEmpty)
        #expect(Self.receive(&node, request: NMEA2000PGN.addressClaim, from: 7, to: 255, at: .milliseconds(10)).isEmpty)
        #expect(Self.receive(&node, request: NMEA2000PGN.productInformation, from: 7, to: 35, at: .milliseconds(10)).isEmpty)
        let frames = node.send(NMEA2000Node.HeadingSample(trueHeading: 10, variation: -2, variationSource: .manual, rateOfTurn: 1), at: .milliseconds(20))
        #expect(frames.map(\.identifier.pgn) == [NMEA2000PGN.vesselHeading, NMEA2000PGN.rateOfTurn, NMEA2000PGN.magneticVariation])
        #expect(frames.allSatisfy { $0.count == 8 }, "single frames only: the gateway joins nothing")
    }

    @Test func theClaimsQuarterSecondCountsFromWhenItsFrameWasWritten() {
        var node = NMEA2000Node(identity: Self.identity, preferred: 35)
        _ = node.start(at: .zero)
        node.claimSent(at: .milliseconds(12))
        #expect(node.nextDeadline == .milliseconds(262))
        #expect(node.tick(at: .milliseconds(255)).isEmpty && !node.claim.mayTransmit)
        #expect(!node.tick(at: .milliseconds(262)).isEmpty && node.claim.mayTransmit)
        // Said again once claimed (a request for 60928): nothing changes.
        node.claimSent(at: .seconds(5))
        #expect(node.claim.mayTransmit)
    }
}
