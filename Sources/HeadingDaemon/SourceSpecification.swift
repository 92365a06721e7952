// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// The `--source` argument: which heading source headingd runs.
enum SourceSpecification: Equatable, Sendable, ExpressibleByArgument, CustomStringConvertible {
    /// The built-in simulation: no hardware needed.
    case simulation
    /// A recording to replay: NMEA 0183, gpsd JSON, or a gpsd regression log.
    case replay(path: String)

    /// The forms `--source` accepts, for `--help` and error messages.
    static let acceptedForms = "'simulation' or 'replay:PATH'"

    init?(argument: String) {
        if argument == "simulation" {
            self = .simulation
        } else if argument.hasPrefix("replay:"), argument.count > "replay:".count {
            self = .replay(path: String(argument.dropFirst("replay:".count)))
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .simulation: "simulation"
        case .replay(let path): "replay:\(path)"
        }
    }

    var defaultValueDescription: String { description }
}
