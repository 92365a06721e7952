// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import PropertyBased
import Testing

/// Invariants of the angle math on the circle, checked on generated angles (x-sheep/swift-property-based).
struct AnglePropertyTests {
    /// Any angle, including several turns either way.
    static let anyAngle = Gen.double(in: -1080...1080)
    /// A fraction of the way.
    static let fraction = Gen.double(in: 0...1)

    /// Whether `angle` lies on the shorter arc from `start` to `end`, within a rounding tolerance.
    static func isOnShorterArc(_ angle: Double, from start: Double, to end: Double) -> Bool {
        let arc = Degrees.signedDifference(from: start, to: end)
        let along = Degrees.signedDifference(from: start, to: angle)
        let tolerance = 1e-7
        if abs(arc) < tolerance { return Degrees.distance(angle, start) < tolerance }
        return arc > 0 ? (-tolerance...(arc + tolerance)).contains(along) : ((arc - tolerance)...tolerance).contains(along)
    }

    @Test func everyResultLiesInTheHalfOpenCircle() async {
        await propertyCheck(count: 500, input: Self.anyAngle, Self.anyAngle, Self.fraction) { first, second, fraction in
            for result in [
                Degrees.normalized(first), Degrees.interpolated(from: first, to: second, fraction: fraction),
                Degrees.circularMean([first, second]),
            ] {
                if let result { #expect(result >= 0 && result < 360, "\(result) from \(first), \(second), \(fraction)") }
            }
            #expect((0...180).contains(Degrees.distance(first, second)))
            let signed = Degrees.signedDifference(from: first, to: second)
            #expect(signed > -180 && signed <= 180)
        }
    }

    @Test func differenceAndMeanAreSymmetric() async {
        await propertyCheck(count: 500, input: Self.anyAngle, Self.anyAngle) { first, second in
            #expect(abs(Degrees.distance(first, second) - Degrees.distance(second, first)) < 1e-9)
            let forward = Degrees.signedDifference(from: first, to: second)
            let backward = Degrees.signedDifference(from: second, to: first)
            // Opposite directions are +180 both ways; otherwise the two differences cancel.
            if abs(abs(forward) - 180) > 1e-9 { #expect(abs(forward + backward) < 1e-9, "\(forward) vs \(backward)") }
            switch (Degrees.circularMean([first, second]), Degrees.circularMean([second, first])) {
            case (let one?, let other?): #expect(Degrees.distance(one, other) < 1e-9)
            case (nil, nil): #expect(Degrees.distance(first, second) > 179.999)
            default: Issue.record("the mean of \(first) and \(second) depends on their order")
            }
        }
    }

    @Test func interpolationNeverLeavesTheArcBetweenItsInputs() async {
        await propertyCheck(count: 500, input: Self.anyAngle, Self.anyAngle, Self.fraction) { start, end, fraction in
            guard Degrees.distance(start, end) < 179.9, let result = Degrees.interpolated(from: start, to: end, fraction: fraction)
            else { return }
            #expect(Self.isOnShorterArc(result, from: start, to: end), "\(result) from \(start) to \(end) at \(fraction)")
        }
    }

    @Test func theMeanOfTwoDirectionsIsTheMidpointOfTheShorterArc() async {
        await propertyCheck(count: 500, input: Self.anyAngle, Self.anyAngle) { first, second in
            guard Degrees.distance(first, second) < 179.9, let mean = Degrees.circularMean([first, second]) else { return }
            #expect(abs(Degrees.distance(mean, first) - Degrees.distance(mean, second)) < 1e-7)
            #expect(Self.isOnShorterArc(mean, from: first, to: second))
        }
    }

    @Test func smoothingNeverLeavesTheArcBetweenThePreviousOutputAndTheNewInput() async {
        let steps = zip(Gen.double(in: 0..<360), Gen.double(in: 0...3)).array(of: 2...40)
        await propertyCheck(count: 200, input: steps, Gen.double(in: 0.1...10)) { steps, timeConstant in
            var smoother = HeadingSmoother(timeConstant: timeConstant)
            var time = 0.0
            var previous: Double?
            for (input, interval) in steps {
                time += interval
                let output = smoother.smooth(input, at: time)
                #expect(output >= 0 && output < 360)
                if let previous, Degrees.distance(previous, input) < 179.9 {
                    #expect(Self.isOnShorterArc(output, from: previous, to: input), "\(output) from \(previous) toward \(input)")
                }
                previous = output
            }
        }
    }

    @Test func theMeanAndInterpolationAcrossNorthStayNearNorth() throws {
        #expect(try #require(Degrees.circularMean([359, 1])) == 0)
        #expect(try #require(Degrees.circularMean([350, 10, 0])) == 0)
        #expect(Degrees.circularMean([0, 180]) == nil)
        #expect(Degrees.circularMean([Double]()) == nil)
        #expect(abs(try #require(Degrees.interpolated(from: 350, to: 10, fraction: 0.5))) < 1e-9)
        #expect(Degrees.interpolated(from: 350, to: 10, fraction: 0) == 350)
        #expect(Degrees.interpolated(from: 350, to: 10, fraction: 1) == 10)
    }

    @Test func smoothingAcrossNorthFollowsAStepWith63PercentAfterOneTimeConstant() {
        var smoother = HeadingSmoother(timeConstant: 2)
        #expect(smoother.smooth(350, at: 0) == 350)
        // Twenty steps of 0.1 s toward 10°: after τ = 2 s, about 63 % of the 20° arc, across north.
        var output = 350.0
        for step in 1...20 { output = smoother.smooth(10, at: Double(step) / 10) }
        let travelled = Degrees.signedDifference(from: 350, to: output)
        #expect(travelled > 11.5 && travelled < 13.5, "travelled \(travelled)° to \(output)")
        // Never through south.
        #expect(output < 20 || output > 340)
        // Time going backwards (a loop) starts again.
        #expect(smoother.smooth(200, at: 0) == 200)
        var passThrough = HeadingSmoother(timeConstant: 0)
        _ = passThrough.smooth(10, at: 0)
        #expect(passThrough.smooth(90, at: 0.1) == 90)
    }
}
