// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import HeadingKit
import Testing

/// The processor's decisions, with time stated exactly: derivation, installation, staleness,
/// failover with hysteresis, and disagreement.
struct HeadingProcessorCoreTests {
    typealias Core = HeadingProcessor.Core
    /// 2026-07-01T00:00:00Z, inside WMM2025's years.
    static let date = Date(timeIntervalSince1970: 1_782_864_000)
    /// Kiel, where the declination is about +4.6°.
    static let kiel = GeographicPosition(latitude: 54.32, longitude: 10.14)!

    static func core(
        _ names: [String] = ["primary"], installations: [HeadingProcessor.Installation]? = nil,
        configuration: HeadingProcessor.Configuration = .init()
    ) -> Core {
        let installations = installations ?? names.map { _ in HeadingProcessor.Installation() }
        return Core(sources: Array(zip(names, installations)), configuration: configuration)
    }

    static func heading(
        true trueHeading: Double? = nil, magnetic: Double? = nil, variation: Double? = nil, position: GeographicPosition? = nil,
        source: String = "primary", at seconds: Double = 0, kind: Heading.Kind = .compass
    ) -> HeadingEvent {
        .heading(
            Heading(
                trueHeading: trueHeading, magneticHeading: magnetic, timestamp: date.addingTimeInterval(seconds), source: source,
                kind: kind, magneticVariation: variation, position: position
            )
        )
    }

    static func only(_ events: [HeadingEvent]) throws -> Heading {
        let headings = events.compactMap(\.heading)
        try #require(headings.count == 1, "expected one heading in \(events)")
        return headings[0]
    }

    // MARK: True and magnetic

    @Test func nearTheMagneticPoleAMagneticSourceIsWarnedOnceAndToldWhenItLeaves() throws {
        var core = Self.core(["fluxgate", "gyro"])
        let resolute = GeographicPosition(latitude: 74.7, longitude: -94.8)!  // H ≈ 3,500 nT: the caution zone
        let pole = GeographicPosition(latitude: 85.8, longitude: 139)!  // H ≈ 100 nT: the blackout zone
        func codes(_ events: [HeadingEvent]) -> [String] {
            events.compactMap { event in
                switch event {
                case .fault(let fault): "fault:\(fault.code)"
                case .notice(let notice): "notice:\(notice.code)"
                default: nil
                }
            }
        }
        #expect(codes(core.receive(Self.heading(magnetic: 10, position: Self.kiel, source: "fluxgate"), from: 0, at: .zero)).isEmpty)
        var events = core.receive(Self.heading(magnetic: 10, position: resolute, source: "fluxgate", at: 1), from: 0, at: .seconds(1))
        #expect(codes(events) == ["notice:magneticCaution"])
        #expect(events.compactMap(\.notice).first?.reason.contains("between 2,000 and 6,000 nT (NOAA's caution zone)") == true)
        #expect(codes(core.receive(Self.heading(magnetic: 12, position: resolute, source: "fluxgate", at: 2), from: 0, at: .seconds(2))).isEmpty, "once")
        // A true source is not magnetic: no warning for it.
        #expect(codes(core.receive(Self.heading(true: 30, position: pole, source: "gyro", at: 3, kind: .inertial), from: 1, at: .seconds(3))).isEmpty)
        events = core.receive(Self.heading(magnetic: 12, position: pole, source: "fluxgate", at: 4), from: 0, at: .seconds(4))
        #expect(codes(events) == ["fault:magneticBlackout"])
        #expect(events.compactMap(\.fault).first?.reason.contains("below 2,000 nT (NOAA's blackout zone") == true)
        #expect(events.compactMap(\.heading).count <= 1, "headings still flow")
        events = core.receive(Self.heading(magnetic: 12, position: Self.kiel, source: "fluxgate", at: 5), from: 0, at: .seconds(5))
        #expect(codes(events) == ["notice:recovered"])
        #expect(events.compactMap(\.notice).first?.reason.contains("out of the magnetic blackout zone") == true)
    }

    @Test func aMagneticHeadingWithTheDevicesVariationGetsItsTrueHeadingFromThat() throws {
        var core = Self.core()
        let heading = try Self.only(core.receive(Self.heading(magnetic: 100, variation: -3.5, position: Self.kiel), from: 0, at: .zero))
        #expect(heading.trueHeading == 96.5)
        #expect(heading.magneticHeading == 100)
        #expect(heading.magneticVariation == -3.5)
        #expect(heading.variationOrigin == .device)
    }

    @Test func aMagneticHeadingWithoutVariationGetsTheModelsAtTheSourcesPosition() throws {
        var core = Self.core()
        let heading = try Self.only(core.receive(Self.heading(magnetic: 100, position: Self.kiel), from: 0, at: .zero))
        let expected = WorldMagneticModel.wmm2025.declination(latitude: 54.32, longitude: 10.14, at: Self.date)
        #expect(expected > 3 && expected < 7)
        #expect(heading.variationOrigin == .model)
        #expect(heading.magneticVariation == expected)
        #expect(abs(try #require(heading.trueHeading) - (100 + expected)) < 1e-6)
        // A year later at the same place the model is asked again (the cache keeps one place and day).
        let later = try Self.only(core.receive(Self.heading(magnetic: 100, position: Self.kiel, at: 365 * 86_400), from: 0, at: .seconds(1)))
        let expectedLater = WorldMagneticModel.wmm2025.declination(latitude: 54.32, longitude: 10.14, at: Self.date + 365 * 86_400)
        #expect(later.magneticVariation == expectedLater && expectedLater != expected)
    }

    @Test func thePositionOfAnotherSourceOrTheConfiguredOneServesWhenTheHeadingHasNone() throws {
        var core = Self.core(["compass", "gnss"])
        let before = try Self.only(core.receive(Self.heading(magnetic: 100, source: "compass"), from: 0, at: .zero))
        #expect(before.variationOrigin == Heading.VariationOrigin.none && before.trueHeading == nil)
        // The GNSS (not delivered: the compass is active) reports where the vessel is …
        #expect(core.receive(Self.heading(true: 10, position: Self.kiel, source: "gnss"), from: 1, at: .seconds(0.1)).compactMap(\.heading).isEmpty)
        // … and the compass's next heading gets the model's variation there.
        let after = try Self.only(core.receive(Self.heading(magnetic: 100, source: "compass", at: 0.2), from: 0, at: .seconds(0.2)))
        #expect(after.variationOrigin == .model)
        #expect(after.position == Self.kiel)

        var fixed = Self.core(configuration: .init(fixedPosition: GeographicPosition(latitude: -33.87, longitude: 151.21)))
        let heading = try Self.only(fixed.receive(Self.heading(true: 200), from: 0, at: .zero))
        let expected = WorldMagneticModel.wmm2025.declination(latitude: -33.87, longitude: 151.21, at: Self.date)
        #expect(heading.variationOrigin == .model)
        #expect(abs(try #require(heading.magneticHeading) - (200 - expected)) < 1e-6)
        #expect(heading.position == nil)
    }

    @Test func withNoVariationAndNoPositionNothingIsDerived() throws {
        var core = Self.core()
        let heading = try Self.only(core.receive(Self.heading(magnetic: 100), from: 0, at: .zero))
        #expect(heading.trueHeading == nil)
        #expect(heading.magneticVariation == nil)
        #expect(heading.variationOrigin == Heading.VariationOrigin.none)
        var noModel = Self.core(configuration: .init(magneticModel: nil))
        let unmodelled = try Self.only(noModel.receive(Self.heading(true: 50, position: Self.kiel), from: 0, at: .zero))
        #expect(unmodelled.magneticHeading == nil && unmodelled.variationOrigin == Heading.VariationOrigin.none)
    }

    @Test func aTrueHeadingGetsItsMagneticHeadingTheSameWay() throws {
        var core = Self.core()
        let heading = try Self.only(core.receive(Self.heading(true: 2, variation: 4.5), from: 0, at: .zero))
        #expect(heading.magneticHeading == 357.5)
        #expect(heading.variationOrigin == .device)
    }

    @Test func pastTheModelsYearsItWarnsOnce() throws {
        var core = Self.core()
        let late = Date(timeIntervalSince1970: 1_956_528_000)  // 2032-01-01
        func at(_ seconds: Double) -> HeadingEvent {
            .heading(Heading(trueHeading: nil, magneticHeading: 90, timestamp: late.addingTimeInterval(seconds), source: "primary", position: Self.kiel))
        }
        let first = core.receive(at(0), from: 0, at: .zero)
        let warnings = first.compactMap(\.fault)
        #expect(warnings.map(\.code) == [.magneticModelOutdated])
        #expect(warnings.first?.reason.contains("WMM-2025 is valid for 2025.0–2030.0, not 2032.0") == true)
        #expect(first.compactMap(\.heading).first?.variationOrigin == .model)
        #expect(core.receive(at(1), from: 0, at: .seconds(1)).compactMap(\.fault).isEmpty)
    }

    @Test func farFromTheModelsYearsNothingIsDerivedAndItSaysSoOnce() throws {
        var core = Self.core()
        let old = Date(timeIntervalSince1970: 772_243_200)  // 1994-06-22
        func at(_ seconds: Double) -> HeadingEvent {
            .heading(Heading(trueHeading: nil, magneticHeading: 90, timestamp: old.addingTimeInterval(seconds), source: "primary", position: Self.kiel))
        }
        let first = core.receive(at(0), from: 0, at: .zero)
        let warnings = first.compactMap(\.fault)
        #expect(warnings.map(\.code) == [.magneticModelOutdated])
        #expect(warnings.first?.reason.contains("is not used for 1994.5") == true)
        let heading = try #require(first.compactMap(\.heading).first)
        #expect(heading.trueHeading == nil)
        #expect(heading.variationOrigin == Heading.VariationOrigin.none)
        #expect(core.receive(at(1), from: 0, at: .seconds(1)).compactMap(\.fault).isEmpty)
    }

    // MARK: Installation

    @Test func theMountingOffsetAndTheDeviationCardApplyToTheSensorsReadings() throws {
        let card = try DeviationTable([(0, 2), (90, -2), (180, 0), (270, 4)])
        var core = Self.core(installations: [.init(mountingOffset: -1.5, deviationTable: card)])
        // Compass 45°: deviation halfway between +2 and −2 = 0; with variation +3: true 48 − 1.5.
        let heading = try Self.only(core.receive(Self.heading(magnetic: 45, variation: 3), from: 0, at: .zero))
        #expect(heading.deviation == 0)
        #expect(heading.magneticHeading == 43.5)
        #expect(heading.trueHeading == 46.5)
        // Compass 315°: between 270 (+4) and 360 (= 0°, +2): +3, across north.
        let second = try Self.only(core.receive(Self.heading(magnetic: 315, variation: 3, at: 1), from: 0, at: .seconds(1)))
        #expect(second.deviation == 3)
        #expect(second.magneticHeading == 316.5)
        #expect(card.deviation(at: 359) > 2 && card.deviation(at: 359) < 2.1)
        #expect(throws: DeviationTable.InvalidTable.self) { try DeviationTable([(10, 1), (10, 2)]) }
        #expect(throws: DeviationTable.InvalidTable.self) { try DeviationTable([]) }
    }

    @Test func smoothingFollowsATurnAcrossNorthWithoutSwingingThroughSouth() throws {
        var core = Self.core(installations: [.init(smoothingTimeConstant: 1)])
        _ = core.receive(Self.heading(true: 350, variation: 0), from: 0, at: .zero)
        var outputs: [Double] = []
        for step in 1...30 {
            let event = Self.heading(true: 10, variation: 0, at: Double(step) / 10)
            outputs.append(try #require(try Self.only(core.receive(event, from: 0, at: .milliseconds(100 * step))).trueHeading))
        }
        for output in outputs { #expect(output > 349.9 || output < 10.01, "\(output) left the arc 350°…10°") }
        // After one time constant (1 s), 63 % of the 20° step: about 2.6° past north.
        #expect(abs(Degrees.signedDifference(from: 350, to: outputs[9]) - 12.6) < 0.3, "\(outputs[9])")
        #expect(Degrees.distance(outputs[29], 10) < 1.2)
    }

    // MARK: Staleness

    @Test func aSourceIsStaleAfterTheConfiguredGapAndRecoversWithItsNextHeading() throws {
        var core = Self.core(configuration: .init(staleAfter: .seconds(2)))
        _ = core.receive(Self.heading(true: 10), from: 0, at: .seconds(1))
        #expect(core.nextDeadline == .seconds(3))
        #expect(core.tick(at: .milliseconds(2999)).isEmpty)
        let stale = core.tick(at: .seconds(3))
        #expect(stale.compactMap(\.fault).map(\.code) == [.stale])
        #expect(stale.compactMap(\.fault).first?.reason.hasPrefix("no heading for 2 s") == true)
        #expect(core.tick(at: .seconds(10)).isEmpty, "stale is raised once")
        #expect(core.nextDeadline == nil)
        let back = core.receive(Self.heading(true: 11, at: 11), from: 0, at: .seconds(11))
        #expect(back.compactMap(\.notice).map(\.code) == [.recovered])
        #expect(back.compactMap(\.heading).map(\.trueHeading) == [11])
        #expect(core.receive(Self.heading(true: 12, at: 12), from: 0, at: .seconds(12)).compactMap(\.notice).isEmpty)
    }

    @Test func aFaultThatStopsHeadingsAlsoMakesTheNextHeadingARecovery() throws {
        var core = Self.core()
        _ = core.receive(Self.heading(true: 10), from: 0, at: .zero)
        let lost = HeadingFault(code: .deviceLost, source: "primary", reason: "cable")
        #expect(core.receive(.fault(lost), from: 0, at: .seconds(1)) == [.fault(lost)])
        #expect(core.receive(Self.heading(true: 10), from: 0, at: .seconds(2)).compactMap(\.notice).map(\.code) == [.recovered])
        // A bad line is not a loss of the source.
        let bad = HeadingFault(code: .malformedInput, source: "primary", reason: "checksum")
        _ = core.receive(.fault(bad), from: 0, at: .seconds(3))
        #expect(core.receive(Self.heading(true: 10), from: 0, at: .seconds(3.1)).compactMap(\.notice).isEmpty)
    }

    // MARK: Several sources

    @Test func failsOverAtOnceAndFailsBackOnlyAfterTheHoldTime() throws {
        var core = Self.core(["gnss", "compass"], configuration: .init(staleAfter: .seconds(2), failBackHold: .seconds(5)))
        var delivered: [String] = []
        var deliveredAt: [(tenth: Int, source: String)] = []
        var notices: [HeadingNotice] = []
        func feed(_ index: Int, at tenths: Int) {
            let name = index == 0 ? "gnss" : "compass"
            let events = core.receive(Self.heading(true: 90, source: name, at: Double(tenths) / 10), from: index, at: .milliseconds(100 * tenths))
            delivered += events.compactMap(\.heading?.source)
            deliveredAt += events.compactMap(\.heading?.source).map { (tenths, $0) }
            notices += events.compactMap(\.notice)
        }
        func tick(at tenths: Int) {
            let events = core.tick(at: .milliseconds(100 * tenths))
            notices += events.compactMap(\.notice)
        }
        // Both deliver for 1 s: the GNSS (first heading) is active.
        for tenth in 0..<10 { feed(0, at: tenth); feed(1, at: tenth) }
        #expect(Set(delivered) == ["gnss"])
        #expect(core.activeSourceName == "gnss")
        // The GNSS stops at 0.9 s; the compass goes on. Stale at 2.9 s: failover at once.
        for tenth in 10..<29 { feed(1, at: tenth) }
        tick(at: 29)
        #expect(core.activeSourceName == "compass")
        #expect(notices.last?.code == .sourceChanged)
        #expect(notices.last?.reason.hasPrefix("failover: headings now from compass instead of gnss") == true)
        deliveredAt = []
        // The GNSS is back at 4.0 s: recovered, but the compass stays active through the hold …
        for tenth in 29...95 {
            feed(1, at: tenth)
            if tenth >= 40 { feed(0, at: tenth) }
            tick(at: tenth)
        }
        #expect(notices.map(\.code) == [.sourceChanged, .recovered, .sourceChanged])
        #expect(notices[1].source == "gnss")
        // … and headings fail back to it 5 s after its return, at 9.0 s, never before.
        #expect(core.activeSourceName == "gnss")
        #expect(notices[2].reason.hasPrefix("fail-back: headings now from gnss instead of compass (gnss healthy for 5 s)"))
        let firstFromGNSS = try #require(deliveredAt.firstIndex { $0.source == "gnss" })
        #expect(deliveredAt[firstFromGNSS].tenth == 90)
        #expect(deliveredAt[..<firstFromGNSS].allSatisfy { $0.source == "compass" })
        #expect(deliveredAt[firstFromGNSS...].allSatisfy { $0.source == "gnss" })
    }

    @Test func aFaultFromTheActiveSourceFailsOverWithoutWaitingForStaleness() {
        var core = Self.core(["gnss", "compass"])
        _ = core.receive(Self.heading(true: 90, source: "gnss"), from: 0, at: .zero)
        _ = core.receive(Self.heading(true: 90, source: "compass"), from: 1, at: .zero)
        let events = core.receive(.fault(HeadingFault(code: .sourceUnavailable, source: "gnss", reason: "gpsd gone")), from: 0, at: .seconds(0.5))
        #expect(events.map(\.fault?.code) == [.sourceUnavailable, nil])
        #expect(events.last?.notice?.previousSource == "gnss")
        #expect(core.activeSourceName == "compass")
    }

    @Test func anUnhealthyActiveSourceIsReplacedByTheFirstSourceToDeliver() throws {
        var core = Self.core(["gnss", "compass"])
        _ = core.receive(Self.heading(true: 90, source: "gnss"), from: 0, at: .zero)
        _ = core.tick(at: .seconds(2))  // stale, and nothing to fail over to
        #expect(core.activeSourceName == "gnss")
        let events = core.receive(Self.heading(true: 91, source: "compass"), from: 1, at: .seconds(3))
        #expect(events.compactMap(\.notice).map(\.code) == [.sourceChanged])
        #expect(try Self.only(events).source == "compass")
    }

    @Test func twoHealthySourcesThatDisagreeForTheHoldTimeRaiseOneFaultNamingBoth() {
        var core = Self.core(["gnss", "compass"], configuration: .init(disagreementThreshold: 10, disagreementHold: .seconds(3)))
        var faults: [HeadingFault] = []
        for tenth in 0...50 {
            let now = Duration.milliseconds(100 * tenth)
            faults += core.receive(Self.heading(true: 90, source: "gnss"), from: 0, at: now).compactMap(\.fault)
            // 8° apart for the first second, then 25°.
            faults += core.receive(Self.heading(true: tenth < 10 ? 98 : 115, source: "compass"), from: 1, at: now).compactMap(\.fault)
        }
        #expect(faults.map(\.code) == [.disagreement])
        #expect(faults.first?.reason.hasPrefix("gnss and compass disagree by 25.0° (more than 10.0° for 3 s)") == true)
        // Agreeing again re-arms it.
        _ = core.receive(Self.heading(true: 91, source: "compass"), from: 1, at: .seconds(6))
        var later: [HeadingFault] = []
        for tenth in 61...100 {
            later += core.receive(Self.heading(true: 120, source: "compass"), from: 1, at: .milliseconds(100 * tenth)).compactMap(\.fault)
            later += core.receive(Self.heading(true: 90, source: "gnss"), from: 0, at: .milliseconds(100 * tenth)).compactMap(\.fault)
        }
        #expect(later.map(\.code) == [.disagreement])
    }

    @Test func whileStartingUpABetterSourcesFirstHeadingTakesOverAtOnceButLaterItWaitsForTheHold() {
        var core = Self.core(["gnss", "compass"], configuration: .init(staleAfter: .seconds(2), failBackHold: .seconds(5)))
        _ = core.receive(Self.heading(true: 90, source: "compass"), from: 1, at: .zero)
        #expect(core.activeSourceName == "compass")
        let events = core.receive(Self.heading(true: 90, source: "gnss"), from: 0, at: .milliseconds(300))
        #expect(core.activeSourceName == "gnss")
        #expect(events.compactMap(\.notice).first?.reason.contains("starting up") == true)

        var late = Self.core(["gnss", "compass"], configuration: .init(staleAfter: .seconds(2), failBackHold: .seconds(5)))
        for second in 0...3 { _ = late.receive(Self.heading(true: 90, source: "compass"), from: 1, at: .seconds(second)) }
        _ = late.receive(Self.heading(true: 90, source: "gnss"), from: 0, at: .seconds(3))
        #expect(late.activeSourceName == "compass", "after start-up a new source waits for the hold")
    }

    @Test func theHeadingFilterDropsSmallChangesWithoutMakingTheSourceStale() {
        var core = Self.core(configuration: .init(staleAfter: .seconds(2), headingFilter: 5))
        var delivered: [Double?] = []
        for (tenth, value) in [10.0, 11, 12, 16, 359, 358].enumerated() {
            delivered += core.receive(Self.heading(true: value, at: Double(tenth)), from: 0, at: .seconds(tenth)).compactMap(\.heading?.trueHeading)
        }
        // 16 is 6° from 10; 359 is 17° from 16 (across north); 358 is only 1° from 359.
        #expect(delivered == [10, 16, 359])
        // A heading held steady is still a heading: no stale fault while they keep coming.
        #expect(core.tick(at: .seconds(6)).isEmpty)
    }
}
