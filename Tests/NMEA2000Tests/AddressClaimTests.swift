// headingd — NMEA2000 tests
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import NMEA2000

/// The address claim of issue 39, on an injected clock.
struct AddressClaimTests {
    static let ours = DeviceName(uniqueNumber: 0x1234, manufacturerCode: 2046, deviceFunction: 160, deviceClass: 40)
    static let lower = DeviceName(rawValue: ours.rawValue - 1)
    static let higher = DeviceName(rawValue: ours.rawValue + 1)

    @Test func aClaimUncontestedFor250MillisecondsIsWonAndNothingElseIsSentBefore() {
        var claim = AddressClaim(name: Self.ours, preferred: 35)
        let started = claim.start(at: .seconds(10))
        #expect(started == [.sendClaim(from: 35)])
        #expect(!claim.mayTransmit)
        #expect(claim.deadline == .seconds(10) + .milliseconds(250))
        let early = claim.tick(at: .seconds(10) + .milliseconds(249))
        #expect(!early)
        #expect(!claim.mayTransmit)
        let won = claim.tick(at: .seconds(10) + .milliseconds(250))
        #expect(won)
        #expect(claim.mayTransmit && claim.state == .claimed && claim.deadline == nil)
        let again = claim.tick(at: .seconds(11))
        #expect(!again, "won once")
        // A preferred address out of range starts at 0.
        #expect(AddressClaim(name: Self.ours, preferred: 252).address == 0)
    }

    @Test func theLowerNameWinsTheLoserMovesToAFreeAddress() {
        var winner = AddressClaim(name: Self.ours, preferred: 35)
        _ = winner.start(at: .zero)
        let answer = winner.heardClaim(from: 35, name: Self.higher, at: .milliseconds(100))
        #expect(answer == [.sendClaim(from: 35)])
        #expect(winner.address == 35 && winner.moves == 0)
        var loser = AddressClaim(name: Self.ours, preferred: 35)
        _ = loser.start(at: .zero)
        let wonFirst = loser.tick(at: .seconds(1))
        #expect(wonFirst)
        // Others hold 36 and 37: the loser goes to 38, and claims for 250 ms again.
        let other36 = loser.heardClaim(from: 36, name: Self.higher, at: .seconds(2))
        #expect(other36.isEmpty)
        let other37 = loser.heardClaim(from: 37, name: Self.lower, at: .seconds(2))
        #expect(other37.isEmpty)
        let lost = loser.heardClaim(from: 35, name: Self.lower, at: .seconds(3))
        #expect(lost == [.sendClaim(from: 38)])
        #expect(loser.address == 38 && loser.moves == 1 && !loser.mayTransmit)
        #expect(loser.isTaken(35) && loser.isTaken(36) && loser.isTaken(37) && !loser.isTaken(38))
        let wonAgain = loser.tick(at: .seconds(3) + .milliseconds(250))
        #expect(wonAgain && loser.mayTransmit)
    }

    @Test func itsOwnNameReadBackIsNeverAContest() {
        var claim = AddressClaim(name: Self.ours, preferred: 35)
        _ = claim.start(at: .zero)
        let echo = claim.heardClaim(from: 35, name: Self.ours, at: .milliseconds(1))
        #expect(echo.isEmpty)
        let copy = claim.heardClaim(from: 80, name: Self.ours, at: .milliseconds(2))
        #expect(copy.isEmpty, "its NAME from another address: not a rival")
        #expect(claim.address == 35 && !claim.isTaken(80))
        let won = claim.tick(at: .milliseconds(250))
        #expect(won)
    }

    @Test func aRequestForTheClaimIsAnsweredEveryTimeOthersAreNot() {
        var claim = AddressClaim(name: Self.ours, preferred: 35)
        _ = claim.start(at: .zero)
        for _ in 0..<1000 {
            #expect(claim.heardRequest(for: 60_928, to: 255) == [.sendClaim(from: 35)])
        }
        #expect(claim.heardRequest(for: 60_928, to: 35) == [.sendClaim(from: 35)])
        #expect(claim.heardRequest(for: 60_928, to: 36).isEmpty, "addressed to another node")
        #expect(claim.heardRequest(for: 126_996, to: 35).isEmpty, "another PGN: the node's responder answers it")
    }

    /// A rival that claims every address in turn, each with a lower NAME: the node moves each time
    /// it is taken, and when none is left it claims 254 and goes quiet — bounded, no crash.
    @Test func aRivalClaimingEveryAddressLeavesItQuietAt254() {
        var claim = AddressClaim(name: Self.ours, preferred: 0)
        _ = claim.start(at: .zero)
        var actions: [AddressClaim.Action] = []
        var time = Duration.zero
        for round in 0..<2 {
            for address in UInt8(0)...AddressClaim.highestAddress {
                time += .milliseconds(1)
                actions += claim.heardClaim(from: address, name: Self.lower, at: time)
            }
            #expect(round == 0 || actions.count == 252)
        }
        #expect(claim.state == .cannotClaim && claim.address == AddressClaim.nullAddress && !claim.mayTransmit)
        #expect(actions.last == .sendClaim(from: 254))
        #expect(claim.heardRequest(for: 60_928, to: 255) == [.sendClaim(from: 254)], "still answers, from 254")
        let quiet = claim.heardClaim(from: 5, name: Self.higher, at: time)
        #expect(quiet.isEmpty, "quiet: contests nothing")
        let never = claim.tick(at: time + .seconds(10))
        #expect(!never)
    }

    /// Hardening 5, item 8: a node asking for the claim every 200 ms. Each answer is written, but
    /// only the claim's own writing starts the 250 ms: the claim is won 250 ms after it went out.
    /// (Before, every answer's writing restarted the count, and the node never transmitted.)
    @Test func answersToRequestsEvery200msDoNotHoldTheClaim() {
        var claim = AddressClaim(name: Self.ours, preferred: 35)
        _ = claim.start(at: .zero)
        claim.sent(at: .milliseconds(5))
        var won = false
        var time = Duration.milliseconds(5)
        for _ in 0..<10 where !won {
            time += .milliseconds(200)
            #expect(claim.heardRequest(for: 60_928, to: 255) == [.sendClaim(from: 35)])
            claim.sent(at: time)
            won = claim.tick(at: time + .milliseconds(50))
        }
        #expect(won && claim.mayTransmit, "won at \(time)")
        #expect(time == .milliseconds(205), "the claim went out at 5 ms: won at the tick at 255 ms, though an answer went out at 205 ms")
    }

    /// Item 9: once at 254, starting again (a gateway that reconnects) sends the cannot-claim
    /// message and nothing else: the node never claims 254 as an address and transmits from it.
    @Test func atTheNullAddressStartingAgainStaysQuiet() {
        var claim = AddressClaim(name: Self.ours, preferred: 0)
        _ = claim.start(at: .zero)
        for address in UInt8(0)...AddressClaim.highestAddress { _ = claim.heardClaim(from: address, name: Self.lower, at: .milliseconds(1)) }
        #expect(claim.state == .cannotClaim)
        let again = claim.start(at: .seconds(5))
        #expect(again == [.sendClaim(from: 254)])
        claim.sent(at: .seconds(5))
        let won = claim.tick(at: .seconds(10))
        #expect(!won && claim.state == .cannotClaim && !claim.mayTransmit && claim.address == 254)
    }

    /// Item 10: every address held, all by NAMEs it beats but its own (held by a lower NAME): it
    /// takes one it wins, not 254.
    @Test func anAddressHeldByAHigherNameIsTakenBeforeGivingUp() {
        var claim = AddressClaim(name: Self.ours, preferred: 35)
        _ = claim.start(at: .zero)
        for address in UInt8(0)...AddressClaim.highestAddress where address != 35 {
            #expect(claim.heardClaim(from: address, name: Self.higher, at: .milliseconds(1)).isEmpty)
        }
        let moved = claim.heardClaim(from: 35, name: Self.lower, at: .milliseconds(2))
        #expect(moved == [.sendClaim(from: 36)], "\(moved)")
        #expect(claim.state == .claiming(since: .milliseconds(2)) && claim.address == 36)
        // The holder of 36 (a higher NAME) contests: the node wins and says its claim again.
        #expect(claim.heardClaim(from: 36, name: Self.higher, at: .milliseconds(3)) == [.sendClaim(from: 36)])
        let won = claim.tick(at: .milliseconds(300))
        #expect(won && claim.address == 36)
    }
}
