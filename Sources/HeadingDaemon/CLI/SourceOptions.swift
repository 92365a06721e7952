// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration

/// The options that choose where headings come from.
struct SourceOptions: ParsableArguments {
    @Option(
        name: .customLong("source"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Where headings come from: \(SourceSpecification.acceptedForms). Give it more than once for several sources, best first: headings come from the best healthy one. (default: simulation)",
            valueName: "source"
        )
    )
    var sources: [String] = []

    @Option(
        name: .customLong("min-course-speed"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Replay and gpsd: the speed in m/s below which course over ground gives no heading (it is noise when stationary). (default: 0.5)",
            valueName: "m/s"
        )
    )
    var minimumCourseSpeed: Double?

    @Flag(
        name: .customLong("require-checksum"),
        help: "Replay and gpsd: refuse NMEA sentences without a checksum (by default a complete sentence without one is accepted)."
    )
    var requireChecksum = false

    /// The options given, by configuration key.
    var settings: [String: ConfigContent] {
        optionSettings([
            "source": sources.isEmpty ? nil : .stringArray(sources),
            "min_course_speed": minimumCourseSpeed.map(ConfigContent.double),
            "require_checksum": requireChecksum ? .bool(true) : nil,
        ])
    }
}
