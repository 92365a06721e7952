// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration

/// The options of a replay source.
struct ReplayOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Replay: a multiple of the recorded speed (10 is ten times faster), or 'max' for flat out. (default: 1)", valueName: "n|max"
        )
    )
    var speed: String?

    @Flag(help: "Replay: start the recording again at its end, until stopped.")
    var loop = false

    @Flag(help: "Replay: exit 65 (EX_DATAERR) after the replay if any line was malformed or out of range.")
    var strict = false

    /// The options given, by configuration key.
    var settings: [String: ConfigContent] {
        optionSettings([
            "replay.speed": speed.map(ConfigContent.string),
            "replay.loop": loop ? .bool(true) : nil,
            "replay.strict": strict ? .bool(true) : nil,
        ])
    }
}
