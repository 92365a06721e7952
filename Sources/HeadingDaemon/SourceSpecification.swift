// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// The `--source` argument: which heading source headingd runs.
enum SourceSpecification: Equatable, Sendable, ExpressibleByArgument, CustomStringConvertible {
    /// The built-in simulation: no hardware needed.
    case simulation

    /// The forms `--source` accepts, for `--help` and error messages.
    static let acceptedForms = "'simulation'"

    init?(argument: String) {
        switch argument {
        case "simulation": self = .simulation
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .simulation: "simulation"
        }
    }

    var defaultValueDescription: String { description }
}
