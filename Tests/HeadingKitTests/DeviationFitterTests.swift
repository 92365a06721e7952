// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

/// Learning a deviation card against a true reference (issue 40), on synthetic swings.
struct DeviationFitterTests {
    static let known = DeviationCurve(a: 0.8, b: 4.2, c: -2.5, d: 1.1, e: -0.7)

    /// A swing: the boat turning at `rate` degrees a second (negative: to port) for `seconds`, the
    /// reference at 10 Hz, the compass at 10 Hz half a period later, with seeded noise.
    static func swing(
        _ fitter: inout DeviationFitter, from start: Double = 0, seconds: Double, rate: Double, startHeading: Double = 0, noise: Double = 0.3,
        period: Double = 0.1, compassLag: Double = 0.05, referenceNoise: Double? = nil
    ) {
        var generator = SeededRandomNumberGenerator(seed: 40)
        var time = start
        while time < start + seconds {
            let magnetic = startHeading + rate * (time - start)
            let spread = referenceNoise ?? noise
            fitter.addReference(magnetic + Double.random(in: -spread...spread, using: &generator), at: time)
            // The compass reads θ where θ + deviation(θ) = magnetic: solved by a few fixed-point steps.
            let at = time + compassLag
            let truth = startHeading + rate * (at - start)
            var theta = truth
            for _ in 0..<20 { theta = truth - known.deviation(at: theta) }
            fitter.addCompass(theta + Double.random(in: -noise...noise, using: &generator), at: at)
            time += period
        }
    }

    /// Hardening 5, item 6: the commonest NMEA 0183 rate. A swing at a steady 3°/s (two minutes a
    /// circle, one each way, the reference with 0.1° of noise) is taken at 1 Hz — the compass at the
    /// reference's moments (both stamped by RMC) or half a second after — as at 10 Hz. (Before: 1 Hz
    /// paired nothing, "never heard at the same moment".)
    @Test(arguments: [(1.0, 0.0), (1.0, 0.5), (0.1, 0.0), (0.1, 0.05)])
    func aSwingAtOneHertzIsTakenAsAtTen(period: Double, lag: Double) throws {
        var fitter = DeviationFitter()
        Self.swing(&fitter, seconds: 120, rate: 3, noise: 0.1, period: period, compassLag: lag, referenceNoise: 0.1)
        Self.swing(&fitter, from: 200, seconds: 120, rate: -3, startHeading: 77, noise: 0.1, period: period, compassLag: lag, referenceNoise: 0.1)
        let fit = try fitter.fit()
        for (ours, theirs) in [(fit.curve.a, Self.known.a), (fit.curve.b, Self.known.b), (fit.curve.c, Self.known.c), (fit.curve.d, Self.known.d), (fit.curve.e, Self.known.e)] {
            #expect(abs(ours - theirs) <= 0.3, "\(fit) against \(Self.known), \(fitter.counts)")
        }
        // Every compass heading but those at the very ends of the swings has a reference around it; at
        // exactly the 3°/s limit the reference's noise puts about half of them over it, at 1 Hz as at 10 Hz.
        let headings = Int((240 / period).rounded())
        #expect(fitter.counts.unpaired <= 2 && fit.pairs + fit.outliers >= headings * 4 / 10, "\(fitter.counts), \(fit)")
    }

    @Test func theLastSampleHeardAtAReferencesMomentIsPaired() throws {
        var fitter = DeviationFitter()
        for second in 0...2 {
            fitter.addReference(10, at: Double(second))
            fitter.addCompass(10, at: Double(second))
        }
        #expect(throws: DeviationFitter.Refusal.self) { try fitter.fit() }
        #expect(fitter.counts.unpaired == 0 && fitter.counts.turning == 0, "\(fitter.counts)")
        #expect("\(fitter.counts)" == "0 unpaired, 0 in turns too fast, 0 dropped")  // a person reads it, not a struct dump
    }

    @Test func turningCirclesBothWaysGiveTheCurveAndItsCard() throws {
        var fitter = DeviationFitter()
        Self.swing(&fitter, seconds: 240, rate: 2)           // two circles to starboard
        Self.swing(&fitter, from: 300, seconds: 240, rate: -2, startHeading: 123)  // two to port
        // A few wild compass readings (a hand-held radio near it): rejected.
        for index in 0..<20 { fitter.addCompass(Double(index * 17), at: 10.03 + Double(index)) }
        let fit = try fitter.fit()
        let curve = fit.curve
        for (ours, theirs) in [(curve.a, Self.known.a), (curve.b, Self.known.b), (curve.c, Self.known.c), (curve.d, Self.known.d), (curve.e, Self.known.e)] {
            #expect(abs(ours - theirs) <= 0.3, "\(curve) against \(Self.known)")
        }
        for entry in curve.card() { #expect(abs(entry.deviation - Self.known.deviation(at: entry.heading)) <= 0.5) }
        #expect(fit.coverage == 1 && fit.residual < 0.6 && fit.outliers >= 10, "\(fit)")
        #expect(curve.parameter().hasPrefix("deviation=0:") && curve.parameter().split(separator: ",").count == 24)
    }

    @Test func halfACircleIsRefusedWithWhatIsMissing() {
        var fitter = DeviationFitter()
        Self.swing(&fitter, seconds: 90, rate: 2)  // 0° to 180° only
        #expect(throws: DeviationFitter.Refusal.self) { try fitter.fit() }
        do {
            _ = try fitter.fit()
        } catch {
            #expect(error.coverage < 0.6 && error.missing.contains { $0.contains(270) }, "\(error)")
            #expect(error.description.contains("were not covered"))
        }
    }

    @Test func aFastTurnOrAReferenceFarInTimeGivesNoPair() throws {
        var fitter = DeviationFitter()
        Self.swing(&fitter, seconds: 60, rate: 10)  // 10°/s: too fast to pair
        #expect(throws: DeviationFitter.Refusal.self) { try fitter.fit() }
        #expect(fitter.counts.turning > 500)
        var far = DeviationFitter()
        for index in 0..<100 {
            far.addReference(Double(index), at: Double(index) * 10)
            far.addCompass(Double(index), at: Double(index) * 10 + 5)
        }
        #expect(throws: DeviationFitter.Refusal.self) { try far.fit() }
        #expect(far.counts.unpaired == 100)
        do {
            _ = try far.fit()
        } catch {
            #expect(error.description == "no pair of headings to fit: of the compass headings, 100 had no reference heard around them and 0 came in turns faster than the limit")
        }
    }
}
