// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration

/// The options of what headingd prints.
struct OutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Exit 0 after printing this many headings (default: run until stopped).", valueName: "n"))
    var count: Int?

    @Option(
        help: ArgumentHelp(
            "Output format: 'text' (one readable line) or 'json' (one JSON object per line). (default: text)", valueName: "text|json"
        )
    )
    var format: String?

    @Flag(help: "Log headingd's own lifecycle at debug level on standard error.")
    var verbose = false

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1, not \(count).") }
    }

    /// The options given, by configuration key (`--count` is not a setting: it belongs to one run).
    var settings: [String: ConfigContent] {
        optionSettings([
            "format": format.map(ConfigContent.string),
            "verbose": verbose ? .bool(true) : nil,
        ])
    }
}
