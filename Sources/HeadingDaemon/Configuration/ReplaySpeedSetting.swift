// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit

/// The `replay.speed` setting (`--speed`): a multiple of the recorded speed, or `max`.
struct ReplaySpeedSetting: Equatable, Sendable {
    /// The speed.
    let speed: ReplayHeadingSource.Speed

    /// Creates a setting.
    /// - Parameter speed: The speed.
    init(speed: ReplayHeadingSource.Speed) { self.speed = speed }

    /// Parses `max` or a multiple from 0.001 to 1000000, such as `10` or `0.5`; `nil` for anything else.
    /// - Parameter argument: The text.
    init?(argument: String) {
        if argument == "max" {
            speed = .flatOut
        } else if argument.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let multiplier = Double(argument),
            (0.001...1_000_000).contains(multiplier)
        {
            speed = .recorded(multiplier: multiplier)
        } else {
            return nil
        }
    }
}

extension ReplaySpeedSetting {
    /// The multiple as text, such as `10`; `max` for flat out.
    var multiplierDescription: String {
        switch speed {
        case .flatOut: "max"
        case .recorded(multiplier: let multiplier): Int(exactly: multiplier).map(String.init) ?? String(multiplier)
        }
    }
}
