// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Learns a compass's deviation card against a true reference (a gyro, a dual-antenna GNSS): it
/// takes the compass's headings and the reference's magnetic headings (its true heading minus the
/// variation), each with its time, pairs each compass heading with the reference's at the same
/// moment, and fits a ``DeviationCurve`` by least squares.
///
/// A pair is taken only when it means something: the reference heard at the compass heading's
/// moment, or within ``Configuration/maximumSkew`` on both sides of it (interpolated between them),
/// and the reference turning at most ``Configuration/maximumRateOfTurn`` (the two instruments lag
/// differently), measured over the reference samples there are about a second around it. Any rate
/// pairs: at 10 Hz as at 1 Hz, the commonest NMEA 0183 rate (a gyro's `HDT` and a fluxgate's
/// `HDG` each stamped by `RMC`, at the same moments or half a second apart). Outliers are
/// rejected (beyond three times the residual and ``Configuration/outlierFloor``, refitted twice).
/// A card needs the boat to have pointed everywhere: the fit is refused, naming the compass
/// headings not covered, unless ``Configuration/minimumSectors`` of the 24 sectors of 15° hold
/// ``Configuration/minimumPerSector`` pairs each and no two neighbouring sectors are empty.
///
/// Pure and bounded: at most ``Configuration/maximumSamples`` headings of each kind are kept.
public struct DeviationFitter: Sendable {
    /// What a pair needs, and what a card needs.
    public struct Configuration: Sendable, Hashable {
        /// The longest time between a compass heading and the reference on each side of it, seconds:
        /// 1.5 s suits a reference at 1 Hz that drops a sentence (at 3°/s, interpolating across 3 s of
        /// a steady turn is exact; across a change of turn it errs by less than the outlier floor).
        public var maximumSkew: Double = 1.5
        /// The fastest turn a pair is taken in, degrees a second.
        public var maximumRateOfTurn: Double = 3
        /// A residual always kept, degrees.
        public var outlierFloor: Double = 2
        /// Sectors of 15° that must be covered, of 24.
        public var minimumSectors = 20
        /// Pairs that cover a sector.
        public var minimumPerSector = 3
        /// Headings kept of each kind.
        public var maximumSamples = 500_000

        /// The defaults.
        public init() {}
    }

    /// A card fitted.
    public struct Fit: Sendable, Hashable {
        /// The curve.
        public let curve: DeviationCurve
        /// The RMS residual of the pairs kept, degrees.
        public let residual: Double
        /// The share of the 24 sectors covered, 0…1.
        public let coverage: Double
        /// Pairs the curve was fitted to.
        public let pairs: Int
        /// Pairs rejected as outliers.
        public let outliers: Int
    }

    /// Why no card was fitted.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The compass headings not covered, as ranges (`90–135°`).
        public let missing: [ClosedRange<Int>]
        /// The share of the sectors covered.
        public let coverage: Double
        /// Pairs taken.
        public let pairs: Int
        /// Compass headings with no reference around them (``Counts/unpaired``).
        public var unpaired = 0
        /// Compass headings taken while the reference turned too fast (``Counts/turning``).
        public var turning = 0

        public var description: String {
            var ranges = missing.map { "\($0.lowerBound)–\($0.upperBound)°" }
            // A gap across north is one: 330–15°.
            if missing.count > 1, let first = missing.first, let last = missing.last, first.lowerBound == 0, last.upperBound == 360 {
                ranges = ["\(last.lowerBound)–\(first.upperBound)°"] + ranges.dropFirst().dropLast()
            }
            return pairs == 0
                ? "no pair of headings to fit: " + (unpaired == 0 && turning == 0
                    ? "no compass heading was heard"
                    : "of the compass headings, \(unpaired) had no reference heard around them and \(turning) came in turns faster than the limit")
                : "the compass headings \(ranges.joined(separator: ", ")) were not covered (\(Int((coverage * 100).rounded())) % of the circle, \(pairs) pairs): turn the boat through a full circle, slowly, and both ways"
        }
    }

    /// How the pairs went.
    public struct Counts: Sendable, Hashable, CustomStringConvertible {
        /// Compass headings with no reference close enough in time.
        public var unpaired = 0
        /// Compass headings taken while the reference turned too fast.
        public var turning = 0
        /// Headings not kept: beyond ``Configuration/maximumSamples``.
        public var dropped = 0

        /// One line for a person: `3 unpaired, 120 in turns too fast, 0 dropped`.
        public var description: String { "\(unpaired) unpaired, \(turning) in turns too fast, \(dropped) dropped" }
    }

    /// The configuration.
    public let configuration: Configuration
    private var compass: [(time: Double, heading: Double)] = []
    private var reference: [(time: Double, heading: Double)] = []
    /// How the pairs went, after ``fit()``… and the headings dropped so far.
    public private(set) var counts = Counts()

    /// A fitter with nothing yet.
    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Compass headings taken so far.
    public var compassCount: Int { compass.count }
    /// Reference headings taken so far.
    public var referenceCount: Int { reference.count }

    /// Takes a compass heading.
    /// - Parameters:
    ///   - heading: The compass heading (the instrument's, before any deviation), degrees.
    ///   - time: When it was measured, seconds on any clock the reference shares.
    public mutating func addCompass(_ heading: Double, at time: Double) {
        guard heading.isFinite, time.isFinite, let heading = Degrees.normalized(heading) else { return }
        guard compass.count < configuration.maximumSamples else { return counts.dropped += 1 }
        compass.append((time, heading))
    }

    /// Takes a reference heading, magnetic (the true heading minus the variation).
    /// - Parameters:
    ///   - magneticHeading: The reference's magnetic heading, degrees.
    ///   - time: When it was measured.
    public mutating func addReference(_ magneticHeading: Double, at time: Double) {
        guard magneticHeading.isFinite, time.isFinite, let heading = Degrees.normalized(magneticHeading) else { return }
        guard reference.count < configuration.maximumSamples else { return counts.dropped += 1 }
        reference.append((time, heading))
    }

    /// Fits the card.
    /// - Returns: The card.
    /// - Throws: ``Refusal`` when the compass headings do not cover enough of the circle.
    public mutating func fit() throws(Refusal) -> Fit {
        let compass = self.compass.sorted { $0.time < $1.time }
        let reference = self.reference.sorted { $0.time < $1.time }
        counts.unpaired = 0
        counts.turning = 0
        var pairs: [(theta: Double, deviation: Double)] = []
        for sample in compass {
            guard let magnetic = Self.value(of: reference, at: sample.time, within: configuration.maximumSkew) else {
                counts.unpaired += 1
                continue
            }
            // The reference's rate of turn over the second around the sample, or the samples there are.
            if let rate = Self.rateOfTurn(of: reference, at: sample.time, heading: magnetic, within: configuration.maximumSkew),
                abs(rate) > configuration.maximumRateOfTurn
            {
                counts.turning += 1
                continue
            }
            pairs.append((sample.heading, Degrees.signedDifference(from: sample.heading, to: magnetic)))
        }
        let covered = coverage(of: pairs.map(\.theta))
        guard covered.sectors >= configuration.minimumSectors, !covered.hasNeighbouringGap, pairs.count >= 5 else {
            throw Refusal(
                missing: covered.missing, coverage: Double(covered.sectors) / 24, pairs: pairs.count, unpaired: counts.unpaired, turning: counts.turning)
        }
        var kept = pairs
        var curve = Self.leastSquares(kept)
        for _ in 0..<2 {
            let residuals = kept.map { $0.deviation - curve.deviation(at: $0.theta) }
            let rms = (residuals.reduce(0) { $0 + $1 * $1 } / Double(residuals.count)).squareRoot()
            let limit = max(3 * rms, configuration.outlierFloor)
            let next = zip(kept, residuals).filter { abs($0.1) <= limit }.map(\.0)
            guard next.count != kept.count, next.count >= 5 else { break }
            kept = next
            curve = Self.leastSquares(kept)
        }
        let residual = (kept.reduce(0) { sum, pair in
            let error = pair.deviation - curve.deviation(at: pair.theta)
            return sum + error * error
        } / Double(kept.count)).squareRoot()
        return Fit(curve: curve, residual: residual, coverage: Double(covered.sectors) / 24, pairs: kept.count, outliers: pairs.count - kept.count)
    }

    /// The reference at `time`, interpolated between the samples either side of it when both are
    /// within `skew`; `nil` otherwise.
    private static func value(of series: [(time: Double, heading: Double)], at time: Double, within skew: Double) -> Double? {
        let low = firstIndex(in: series, atOrAfter: time)
        // One heard at that moment is the value, first and last samples too.
        if low < series.count, series[low].time == time { return series[low].heading }
        guard low < series.count, low > 0 else { return nil }
        let before = series[low - 1], after = series[low]
        guard time - before.time <= skew, after.time - time <= skew else { return nil }
        let span = after.time - before.time
        guard span > 0 else { return after.heading }
        return Degrees.interpolated(from: before.heading, to: after.heading, fraction: (time - before.time) / span)
    }

    /// The index of the first sample at or after `time` (`series.count` when none is).
    private static func firstIndex(in series: [(time: Double, heading: Double)], atOrAfter time: Double) -> Int {
        var low = 0, high = series.count
        while low < high {
            let middle = (low + high) / 2
            if series[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The reference's rate of turn around `time`, degrees a second: from the last sample at least
    /// 0.5 s before it to the first at least 0.5 s after it, each within 0.5 s and `skew` of it; at
    /// the start or end of the series, from the heading at `time` itself. `nil` when neither side has one.
    private static func rateOfTurn(
        of series: [(time: Double, heading: Double)], at time: Double, heading: Double, within skew: Double
    ) -> Double? {
        let reach = 0.5 + skew
        let afterIndex = firstIndex(in: series, atOrAfter: time + 0.5)
        let beforeIndex = firstIndex(in: series, atOrAfter: time - 0.5)
        var before: (time: Double, heading: Double) = (time, heading)
        if beforeIndex < series.count, series[beforeIndex].time == time - 0.5 {
            before = series[beforeIndex]
        } else if beforeIndex > 0, time - series[beforeIndex - 1].time <= reach {
            before = series[beforeIndex - 1]
        }
        var after: (time: Double, heading: Double) = (time, heading)
        if afterIndex < series.count, series[afterIndex].time - time <= reach { after = series[afterIndex] }
        let span = after.time - before.time
        guard span > 0 else { return nil }
        return Degrees.signedDifference(from: before.heading, to: after.heading) / span
    }

    /// Which of the 24 sectors of 15° the compass headings cover.
    private func coverage(of thetas: [Double]) -> (sectors: Int, missing: [ClosedRange<Int>], hasNeighbouringGap: Bool) {
        var counts = [Int](repeating: 0, count: 24)
        for theta in thetas { counts[min(23, Int(theta / 15))] += 1 }
        let isCovered = counts.map { $0 >= configuration.minimumPerSector }
        var missing: [ClosedRange<Int>] = []
        for sector in 0..<24 where !isCovered[sector] {
            if let last = missing.last, last.upperBound == sector * 15 {
                missing[missing.count - 1] = last.lowerBound...(sector * 15 + 15)
            } else {
                missing.append((sector * 15)...(sector * 15 + 15))
            }
        }
        let gap = (0..<24).contains { !isCovered[$0] && !isCovered[($0 + 1) % 24] }
        return (isCovered.filter { $0 }.count, missing, gap)
    }

    /// The five coefficients by least squares: the normal equations, solved by Gaussian
    /// elimination with partial pivoting.
    private static func leastSquares(_ pairs: [(theta: Double, deviation: Double)]) -> DeviationCurve {
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: 6), count: 5)
        for pair in pairs {
            let radians = pair.theta * .pi / 180
            let row = [1, sin(radians), cos(radians), sin(2 * radians), cos(2 * radians)]
            for i in 0..<5 {
                for j in 0..<5 { matrix[i][j] += row[i] * row[j] }
                matrix[i][5] += row[i] * pair.deviation
            }
        }
        for column in 0..<5 {
            let pivot = (column..<5).max { abs(matrix[$0][column]) < abs(matrix[$1][column]) } ?? column
            matrix.swapAt(column, pivot)
            guard abs(matrix[column][column]) > 1e-12 else { continue }
            for row in 0..<5 where row != column {
                let factor = matrix[row][column] / matrix[column][column]
                for k in column..<6 { matrix[row][k] -= factor * matrix[column][k] }
            }
        }
        let x = (0..<5).map { abs(matrix[$0][$0]) > 1e-12 ? matrix[$0][5] / matrix[$0][$0] : 0 }
        return DeviationCurve(a: x[0], b: x[1], c: x[2], d: x[3], e: x[4])
    }
}

extension DeviationFitter.Fit: CustomStringConvertible {
    /// The card in a line: `A 1.0° B 3.0° C -2.0° D 0.5° E -0.7° (RMS 0.02° over 200 pairs, 1 outlier, 100 % of the circle)`.
    public var description: String {
        "\(curve) (RMS \(String(format: "%.2f", residual))° over \(pairs) pair\(pairs == 1 ? "" : "s"), "
            + "\(outliers) outlier\(outliers == 1 ? "" : "s"), \(Int((coverage * 100).rounded())) % of the circle)"
    }
}
