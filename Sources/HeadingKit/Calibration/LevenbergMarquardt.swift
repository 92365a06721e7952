// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Non-linear least squares by Levenberg–Marquardt: the parameters that make the sum of squared
/// residuals least, from a start near them. The Jacobian is taken by forward differences (a
/// calibration has at most a few thousand residuals and ten parameters), the damping is
/// Marquardt's (scaled by the diagonal) with a floor, so that a direction the data cannot see —
/// a level boat's vertical hard iron — stays where it started instead of running off.
///
/// Pure and bounded: at most `maximumIterations` steps, each at most 40 tries of the damping.
enum LevenbergMarquardt {
    /// The parameters found and the sum of squared residuals there.
    struct Solution {
        var parameters: [Double]
        var cost: Double
    }

    /// Minimises Σ rᵢ(p)².
    /// - Parameters:
    ///   - initial: The start.
    ///   - residualCount: How many residuals `residuals` writes.
    ///   - maximumIterations: The most steps taken.
    ///   - residuals: Writes the residuals at a parameter vector into its second argument (sized `residualCount`).
    /// - Returns: The best parameters found (the start when no step improved on it).
    static func minimize(
        _ initial: [Double], residualCount: Int, maximumIterations: Int = 100,
        residuals: ([Double], inout [Double]) -> Void
    ) -> Solution {
        let n = initial.count, m = residualCount
        var parameters = initial
        var current = [Double](repeating: 0, count: m)
        var trial = current
        residuals(parameters, &current)
        var cost = sumOfSquares(current)
        guard n > 0, m > 0, cost.isFinite else { return Solution(parameters: parameters, cost: cost) }
        var jacobian = [Double](repeating: 0, count: m * n)  // column by column
        var lambda = 1e-3
        for _ in 0..<maximumIterations {
            for j in 0..<n {
                var shifted = parameters
                let step = 1e-7 * max(1, abs(parameters[j]))
                shifted[j] += step
                residuals(shifted, &trial)
                for i in 0..<m { jacobian[j * m + i] = (trial[i] - current[i]) / step }
            }
            var normal = [Double](repeating: 0, count: n * n)
            var gradient = [Double](repeating: 0, count: n)
            for j in 0..<n {
                for k in j..<n {
                    var sum = 0.0
                    for i in 0..<m { sum += jacobian[j * m + i] * jacobian[k * m + i] }
                    normal[j * n + k] = sum
                    normal[k * n + j] = sum
                }
                var sum = 0.0
                for i in 0..<m { sum += jacobian[j * m + i] * current[i] }
                gradient[j] = -sum
            }
            let largestDiagonal = (0..<n).map { normal[$0 * n + $0] }.max() ?? 0
            var improved = false
            var tries = 0
            while tries < 40 {
                tries += 1
                var damped = normal
                for j in 0..<n { damped[j * n + j] += lambda * (normal[j * n + j] + 1e-9 * largestDiagonal + 1e-12) }
                guard let delta = solve(damped, gradient, n) else {
                    lambda *= 10
                    continue
                }
                let candidate = zip(parameters, delta).map(+)
                residuals(candidate, &trial)
                let trialCost = sumOfSquares(trial)
                if trialCost.isFinite, trialCost < cost {
                    let gain = cost - trialCost
                    parameters = candidate
                    swap(&current, &trial)
                    cost = trialCost
                    lambda = max(lambda / 10, 1e-12)
                    improved = gain > 1e-12 * cost
                    if !improved { return Solution(parameters: parameters, cost: cost) }
                    break
                }
                lambda *= 10
            }
            if !improved { break }
        }
        return Solution(parameters: parameters, cost: cost)
    }

    static func sumOfSquares(_ values: [Double]) -> Double {
        var sum = 0.0
        for value in values { sum += value * value }
        return sum
    }

    /// Solves `a x = b` (n×n, row by row) by Gaussian elimination with partial pivoting; `nil` when singular.
    static func solve(_ a: [Double], _ b: [Double], _ n: Int) -> [Double]? {
        var a = a, b = b
        for column in 0..<n {
            var pivot = column
            for row in column + 1..<max(column + 1, n) where abs(a[row * n + column]) > abs(a[pivot * n + column]) { pivot = row }
            guard abs(a[pivot * n + column]) > 1e-300, a[pivot * n + column].isFinite else { return nil }
            if pivot != column {
                for k in 0..<n { a.swapAt(pivot * n + k, column * n + k) }
                b.swapAt(pivot, column)
            }
            for row in column + 1..<max(column + 1, n) {
                let factor = a[row * n + column] / a[column * n + column]
                if factor == 0 { continue }
                for k in column..<n { a[row * n + k] -= factor * a[column * n + k] }
                b[row] -= factor * b[column]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in row + 1..<max(row + 1, n) { sum -= a[row * n + k] * x[k] }
            x[row] = sum / a[row * n + row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
