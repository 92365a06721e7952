// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration

/// The options of the simulation (and the pace of an untimed replay).
struct SimulationOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Simulation: headings per second. Replay: headings per second for a recording that carries no times. (default: 10)",
            valueName: "hz"
        )
    )
    var rate: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Simulation: seed; the same seed gives the same headings. (default: 1)", valueName: "n"))
    var seed: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Simulation: seconds from one sensor dropout to the next; 0 for none. (default: 30)", valueName: "seconds"))
    var dropoutInterval: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Simulation: how long each dropout lasts, in seconds. (default: 3)", valueName: "seconds"))
    var dropoutDuration: Double?

    /// The options given, by configuration key.
    var settings: [String: ConfigContent] {
        optionSettings([
            "simulation.rate": rate.map(ConfigContent.double),
            "simulation.seed": seed.map(ConfigContent.int),
            "simulation.dropout_interval": dropoutInterval.map(ConfigContent.double),
            "simulation.dropout_duration": dropoutDuration.map(ConfigContent.double),
        ])
    }
}
