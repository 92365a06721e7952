// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import HeadingKitGPSD

/// The `--source` argument: which heading source headingd runs.
enum SourceSpecification: Equatable, Sendable, ExpressibleByArgument, CustomStringConvertible {
    /// The built-in simulation: no hardware needed.
    case simulation
    /// A recording to replay: NMEA 0183, gpsd JSON, or a gpsd regression log.
    case replay(path: String)
    /// A live gpsd: `gpsd://HOST:PORT[/DEVICE]`.
    case gpsd(GPSDEndpoint)

    /// The forms `--source` accepts, for `--help` and error messages.
    static let acceptedForms = "'simulation', 'replay:PATH' or 'gpsd://HOST:PORT[/DEVICE]' (gpsd alone is gpsd://127.0.0.1:2947)"

    init?(argument: String) {
        if argument == "simulation" {
            self = .simulation
        } else if argument.hasPrefix("replay:"), argument.count > "replay:".count {
            self = .replay(path: String(argument.dropFirst("replay:".count)))
        } else if argument == "gpsd" {
            self = .gpsd(.default)
        } else if let endpoint = GPSDEndpoint(argument) {
            self = .gpsd(endpoint)
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .simulation: "simulation"
        case .replay(let path): "replay:\(path)"
        case .gpsd(let endpoint): endpoint.description
        }
    }
}
