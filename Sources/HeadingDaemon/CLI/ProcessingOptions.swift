// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration

/// The options of the processor: staleness, failover, disagreement, variation and the filter.
struct ProcessingOptions: ParsableArguments {
    @Option(
        name: .customLong("stale-after"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds without a heading before a source is stale (a stale fault; failover when it is the active one). (default: 2)",
            valueName: "seconds"
        )
    )
    var staleAfter: Double?

    @Option(
        name: .customLong("fail-back-hold"),
        parsing: .unconditional,
        help: ArgumentHelp("Seconds a better source must deliver again before headings fail back to it. (default: 5)", valueName: "seconds")
    )
    var failBackHold: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Degrees two healthy sources may disagree by, for --disagreement-hold seconds, before a disagreement fault; 0 for never. (default: 10)",
            valueName: "degrees"
        )
    )
    var disagreement: Double?

    @Option(
        name: .customLong("disagreement-hold"),
        parsing: .unconditional,
        help: ArgumentHelp("Seconds a disagreement must last before the fault. (default: 10)", valueName: "seconds")
    )
    var disagreementHold: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The vessel's position when no source reports one, for the World Magnetic Model's variation: LATITUDE,LONGITUDE[,ALTITUDE] (degrees North and East, metres). (default: none)",
            valueName: "lat,lon"
        )
    )
    var position: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Deliver a heading only when it differs from the last delivered one by at least this many degrees, measured on the circle (0 delivers all). (default: 0)",
            valueName: "degrees"
        )
    )
    var filter: Double?

    /// The options given, by configuration key.
    var settings: [String: ConfigContent] {
        optionSettings([
            "stale_after": staleAfter.map(ConfigContent.double),
            "fail_back_hold": failBackHold.map(ConfigContent.double),
            "disagreement.threshold": disagreement.map(ConfigContent.double),
            "disagreement.hold": disagreementHold.map(ConfigContent.double),
            "position": position.map(ConfigContent.string),
            "filter": filter.map(ConfigContent.double),
        ])
    }
}
