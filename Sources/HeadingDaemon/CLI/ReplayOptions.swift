// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration

/// The options of a replay source.
struct ReplayOptions: ParsableArguments {
    @Option(
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
        var values: [String: ConfigContent] = [:]
        if let speed { values["replay.speed"] = .string(speed) }
        if loop { values["replay.loop"] = .bool(true) }
        if strict { values["replay.strict"] = .bool(true) }
        return values
    }
}
