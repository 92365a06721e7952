// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Clocks
import Foundation
import HeadingKit
import Testing

struct HeadingSimulationTests {
    private func run(_ configuration: HeadingSimulation.Configuration, ticks: Int) -> [HeadingSimulation.Step] {
        var simulation = HeadingSimulation(configuration: configuration)
        return (0..<ticks).map { _ in simulation.next() }
    }

    private func configuration(seed: UInt64, dropoutInterval: Double? = 30) -> HeadingSimulation.Configuration {
        HeadingSimulation.Configuration(seed: seed, rate: 10, dropoutInterval: dropoutInterval, epoch: epoch)
    }

    @Test func theSameSeedGivesTheSameHeadings() {
        #expect(run(configuration(seed: 7), ticks: 2_000) == run(configuration(seed: 7), ticks: 2_000))
        #expect(run(configuration(seed: 7), ticks: 50) != run(configuration(seed: 8), ticks: 50))
    }

    @Test(arguments: [1, 2, 7, 42, 1234] as [UInt64])
    func headingsStayOnTheCircleAndCrossNorthBothWays(seed: UInt64) {
        let headings = run(configuration(seed: seed, dropoutInterval: nil), ticks: 1_200).compactMap { step in
            if case .heading(let heading) = step { return heading }
            return nil
        }
        #expect(headings.count == 1_200)
        var eastward = 0  // 359.x → 0.x: a starboard turn through north
        var westward = 0  // 0.x → 359.x: a port turn through north
        for (previous, next) in zip(headings, headings.dropFirst()) {
            let old = previous.trueHeading!
            let new = next.trueHeading!
            #expect(old >= 0 && old < 360)
            #expect(Degrees.distance(old, new) < 5, "a steady turn moves a few degrees per tick")
            if old > 270 && new < 90 { eastward += 1 }
            if old < 90 && new > 270 { westward += 1 }
        }
        #expect(eastward >= 1)
        #expect(westward >= 1)
        #expect(headings.allSatisfy { $0.magneticHeading != nil && $0.headingAccuracy != nil })
        #expect(headings.allSatisfy { $0.kind == .simulated && $0.source == "simulation" })
        // Reported to 0.01°, as a sensor would, and printed that short.
        #expect(headings.allSatisfy { "\($0.trueHeading!)".count <= 6 && "\($0.magneticHeading!)".count <= 6 })
    }

    @Test func turnsAreSteadyBetweenNoise() {
        let configuration = HeadingSimulation.Configuration(seed: 3, rate: 10, noise: 0, dropoutInterval: nil, epoch: epoch)
        let headings = run(configuration, ticks: 600).compactMap { step -> Double? in
            if case .heading(let heading) = step { return heading.trueHeading }
            return nil
        }
        let rates = zip(headings, headings.dropFirst()).map { Degrees.signedDifference(from: $0, to: $1) }
        let turning = rates.filter { abs($0) > 0.05 }.map { abs($0) }
        #expect(!turning.isEmpty)
        #expect(rates.contains { abs($0) < 0.011 }, "a steady course between turns")
        // A turning tick turns by the same amount (to the 0.01° rounding), starboard or port,
        // but for the ticks where a turn begins or ends.
        let typical = turning.sorted()[turning.count / 2]
        let steady = turning.filter { abs($0 - typical) < 0.03 }
        #expect(steady.count >= turning.count * 9 / 10)
    }

    @Test func aDropoutRaisesOneFaultThenHeadingsResume() {
        let steps = run(configuration(seed: 5, dropoutInterval: 10), ticks: 250)  // 25 s at 10 Hz
        let faultTicks = steps.indices.filter { if case .fault = steps[$0] { true } else { false } }
        // Dropouts of 3 s start at 7 s and 17 s: ticks 70 and 170.
        #expect(faultTicks == [70, 170])
        for tick in faultTicks {
            if case .fault(let fault) = steps[tick] {
                #expect(fault.code == .deviceLost)
                #expect(fault.source == "simulation")
            }
            #expect(steps[(tick + 1)..<(tick + 30)].allSatisfy { $0 == .silence })
            if case .heading = steps[tick + 30] {} else { Issue.record("no heading after the dropout at \(tick)") }
        }
    }

    @Test func timestampsFollowTheRateFromTheEpoch() {
        let steps = run(configuration(seed: 1, dropoutInterval: nil), ticks: 3)
        let times = steps.compactMap { step -> Date? in
            if case .heading(let heading) = step { return heading.timestamp }
            return nil
        }
        #expect(times == [epoch, epoch + 0.1, epoch + 0.2])
    }
}

struct SimulatedHeadingSourceTests {
    @Test func theInjectedClockPacesHeadingsAtTheRate() async {
        let clock = TestClock()
        let source = SimulatedHeadingSource(
            configuration: .init(seed: 9, rate: 10, dropoutInterval: nil, epoch: epoch),
            clock: clock
        )
        let recorder = EventRecorder()
        source.delegate = recorder
        source.start()
        // Advance to instants between ticks: TestClock suspends a sleep whose deadline equals now.
        await clock.advance(by: .seconds(1.05))
        // Ticks at 0.0, 0.1, …, 1.0 s: eleven headings, and no more until the clock moves on.
        #expect(await recorder.wait { $0.count >= 11 })
        #expect(recorder.events.count == 11)
        await clock.advance(by: .milliseconds(100))
        #expect(await recorder.wait { $0.count >= 12 })
        #expect(recorder.headings.last?.timestamp == epoch + 1.1)
        source.stop()
    }

    @Test func itPlaysTheSameSequenceAsTheSimulation() async {
        let configuration = HeadingSimulation.Configuration(
            seed: 4, rate: 50, dropoutInterval: 1, dropoutDuration: 0.2, epoch: epoch
        )
        let clock = TestClock()
        let source = SimulatedHeadingSource(configuration: configuration, clock: clock)
        let recorder = EventRecorder()
        source.delegate = recorder
        source.start()
        await clock.advance(by: .seconds(2.51))  // ticks 0…125, with dropouts at 0.8 s and 1.8 s
        var simulation = HeadingSimulation(configuration: configuration)
        var expected: [HeadingEvent] = []
        for _ in 0...125 {
            switch simulation.next() {
            case .heading(let heading): expected.append(.heading(heading))
            case .fault(let fault): expected.append(.fault(fault))
            case .silence: break
            }
        }
        #expect(expected.count == 108)  // 126 ticks, less two dropouts of 9
        let count = expected.count
        #expect(await recorder.wait { $0.count >= count })
        #expect(recorder.events == expected)
        source.stop()
    }

    @Test func itIsAlwaysAuthorized() {
        let source = SimulatedHeadingSource()
        let recorder = EventRecorder()
        source.delegate = recorder
        source.requestAuthorization()
        #expect(recorder.events == [.authorizationChanged(.authorized)])
    }
}
