// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import HeadingKit

/// The `--speed` argument: a multiple of the recorded speed, or `max`.
struct ReplaySpeedArgument: Equatable, Sendable, ExpressibleByArgument {
    /// The speed.
    let speed: ReplayHeadingSource.Speed

    init(speed: ReplayHeadingSource.Speed) { self.speed = speed }

    init?(argument: String) {
        if argument == "max" {
            speed = .flatOut
        } else if argument.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let multiplier = Double(argument),
            multiplier > 0, multiplier.isFinite
        {
            speed = .recorded(multiplier: multiplier)
        } else {
            return nil
        }
    }
}
