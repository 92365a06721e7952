// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A small deterministic random number generator (SplitMix64): the same seed gives the same numbers
/// on every platform and every run, which `SystemRandomNumberGenerator` cannot.
package struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    /// - Parameter seed: Any 64-bit value; equal seeds give equal sequences.
    package init(seed: UInt64) { state = seed }

    /// Returns the next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A normally distributed value with mean 0 and the given standard deviation (Box–Muller).
    /// - Parameter standardDeviation: The spread of the distribution.
    /// - Returns: One sample.
    package mutating func nextGaussian(standardDeviation: Double) -> Double {
        guard standardDeviation > 0 else { return 0 }
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return standardDeviation * (-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * Double.pi * u2)
    }
}
