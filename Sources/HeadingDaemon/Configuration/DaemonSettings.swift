// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import Foundation
import HeadingKit

/// headingd's effective settings, after files, drop-ins, environment and flags (see
/// ``SettingsLoader``), with the defaults for whatever none of them sets.
struct DaemonSettings: Sendable, Equatable {
    /// The sources in priority order.
    var sources = [SourceSpecification.simulation]
    var format = OutputFormat.text
    var filter = 0.0
    var minimumCourseSpeed = 0.5
    var verbose = false
    var replaySpeed = ReplaySpeedSetting(speed: .asRecorded)
    var replayLoops = false
    var replayStrict = false
    var rate = 10.0
    var seed: UInt64 = 1
    var dropoutInterval = 30.0
    var dropoutDuration = 3.0
    /// Seconds without a heading before a source is stale.
    var staleAfter = 2.0
    /// Seconds a better source must be healthy before headings fail back to it.
    var failBackHold = 5.0
    /// Degrees two healthy sources may disagree by before a fault; 0 for never.
    var disagreementThreshold = 10.0
    /// Seconds a disagreement must last before the fault.
    var disagreementHold = 10.0
    /// The vessel's position when no source reports one, for the World Magnetic Model.
    var position: GeographicPosition?

    /// Every key headingd reads, with its checks.
    static let keys: [SettingKey] = [
        SettingKey(name: "source", option: "--source", kind: .stringList) { content in
            guard case .stringArray(let texts) = content, !texts.isEmpty else { return "must name at least one source" }
            for text in texts {
                if case .failure(let error) = SourceSpecification.parse(text) { return error.reason }
            }
            return nil
        },
        SettingKey(name: "format", option: "--format", kind: .string) { content in
            guard case .string(let text) = content, OutputFormat(rawValue: text) != nil else { return "must be 'text' or 'json'" }
            return nil
        },
        SettingKey(name: "filter", option: "--filter", kind: .double) { number($0, in: 0...180, "between 0 and 180 degrees") },
        SettingKey(name: "min_course_speed", option: "--min-course-speed", kind: .double) { number($0, in: 0...1000, "between 0 and 1000 m/s") },
        SettingKey(name: "verbose", option: "--verbose", kind: .bool),
        SettingKey(name: "replay.speed", option: "--speed", kind: .string) { content in
            guard case .string(let text) = content, ReplaySpeedSetting(argument: text) != nil else {
                return "must be a multiple above 0 (\"10\") or \"max\""
            }
            return nil
        },
        SettingKey(name: "replay.loop", option: "--loop", kind: .bool),
        SettingKey(name: "replay.strict", option: "--strict", kind: .bool),
        SettingKey(name: "simulation.rate", option: "--rate", kind: .double) { number($0, in: 0.001...100_000, "above 0 and at most 100000 Hz") },
        SettingKey(name: "simulation.seed", option: "--seed", kind: .integer) { content in
            guard case .int(let seed) = content, seed >= 0 else { return "must be 0 or more" }
            return nil
        },
        SettingKey(name: "simulation.dropout_interval", option: "--dropout-interval", kind: .double) { number($0, in: 0...86_400, "between 0 and 86400 s") },
        SettingKey(name: "simulation.dropout_duration", option: "--dropout-duration", kind: .double) { number($0, in: 0.001...86_400, "above 0 s") },
        SettingKey(name: "stale_after", option: "--stale-after", kind: .double) { number($0, in: 0.01...3600, "between 0.01 and 3600 seconds") },
        SettingKey(name: "fail_back_hold", option: "--fail-back-hold", kind: .double) { number($0, in: 0...3600, "between 0 and 3600 seconds") },
        SettingKey(name: "disagreement.threshold", option: "--disagreement", kind: .double) { number($0, in: 0...180, "between 0 (never) and 180 degrees") },
        SettingKey(name: "disagreement.hold", option: "--disagreement-hold", kind: .double) { number($0, in: 0...3600, "between 0 and 3600 seconds") },
        SettingKey(name: "position", option: "--position", kind: .string) { content in
            guard case .string(let text) = content, parsePosition(text) != nil else {
                return "must be LATITUDE,LONGITUDE[,ALTITUDE], such as 54.32,10.14 (degrees North within ±90 and East within ±180, metres above the ellipsoid from -1000 to 100000)"
            }
            return nil
        },
    ]

    /// A position written `LATITUDE,LONGITUDE[,ALTITUDE]`: latitude within ±90°, longitude within
    /// ±180°, altitude from −1 km to 100 km (the World Magnetic Model's own range is −1 km to 850 km;
    /// a vessel is far below its top).
    static func parsePosition(_ text: String) -> GeographicPosition? {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard (2...3).contains(numbers.count), let latitude = numbers[0], let longitude = numbers[1],
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return nil }
        let altitude = numbers.count == 3 ? numbers[2] : nil
        if numbers.count == 3 { guard let altitude, (-1000...100_000).contains(altitude) else { return nil } }
        return GeographicPosition(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// The processor's configuration these settings give.
    var processorConfiguration: HeadingProcessor.Configuration {
        HeadingProcessor.Configuration(
            staleAfter: .milliseconds(Int((staleAfter * 1000).rounded())),
            failBackHold: .milliseconds(Int((failBackHold * 1000).rounded())),
            disagreementThreshold: disagreementThreshold > 0 ? disagreementThreshold : nil,
            disagreementHold: .milliseconds(Int((disagreementHold * 1000).rounded())),
            fixedPosition: position,
            headingFilter: filter
        )
    }

    private static func number(_ content: ConfigContent, in range: ClosedRange<Double>, _ phrase: String) -> String? {
        guard case .double(let value) = content, value.isFinite, range.contains(value) else { return "must be \(phrase)" }
        return nil
    }

    /// The settings a reader gives, with defaults for what it does not have.
    init(reader: ConfigReader) {
        let defaults = DaemonSettings()
        sources = reader.stringArray(forKey: "source").map { $0.compactMap(SourceSpecification.init(argument:)) } ?? defaults.sources
        format = reader.string(forKey: "format").flatMap(OutputFormat.init(rawValue:)) ?? defaults.format
        filter = reader.double(forKey: "filter") ?? defaults.filter
        minimumCourseSpeed = reader.double(forKey: "min_course_speed") ?? defaults.minimumCourseSpeed
        verbose = reader.bool(forKey: "verbose") ?? defaults.verbose
        replaySpeed = reader.string(forKey: "replay.speed").flatMap(ReplaySpeedSetting.init(argument:)) ?? defaults.replaySpeed
        replayLoops = reader.bool(forKey: "replay.loop") ?? defaults.replayLoops
        replayStrict = reader.bool(forKey: "replay.strict") ?? defaults.replayStrict
        rate = reader.double(forKey: "simulation.rate") ?? defaults.rate
        seed = reader.int(forKey: "simulation.seed").map { UInt64($0) } ?? defaults.seed
        dropoutInterval = reader.double(forKey: "simulation.dropout_interval") ?? defaults.dropoutInterval
        dropoutDuration = reader.double(forKey: "simulation.dropout_duration") ?? defaults.dropoutDuration
        staleAfter = reader.double(forKey: "stale_after") ?? defaults.staleAfter
        failBackHold = reader.double(forKey: "fail_back_hold") ?? defaults.failBackHold
        disagreementThreshold = reader.double(forKey: "disagreement.threshold") ?? defaults.disagreementThreshold
        disagreementHold = reader.double(forKey: "disagreement.hold") ?? defaults.disagreementHold
        position = reader.string(forKey: "position").flatMap(Self.parsePosition)
    }

    /// The defaults.
    init() {}

    /// The settings as a TOML document, for `--check-config`.
    var tomlDescription: String {
        func quoted(_ text: String) -> String { HeadingLineFormatter.quoted(text) }
        return """
            source = [\(sources.map { quoted($0.description) }.joined(separator: ", "))]
            format = \(quoted(format.rawValue))
            filter = \(filter)
            min_course_speed = \(minimumCourseSpeed)
            verbose = \(verbose)
            stale_after = \(staleAfter)
            fail_back_hold = \(failBackHold)
            \(position.map { "position = \(quoted($0.description))" } ?? "# position: none (the sources' fixes only)")

            [replay]
            speed = \(quoted(replaySpeed.speed == .flatOut ? "max" : replaySpeed.multiplierDescription))
            loop = \(replayLoops)
            strict = \(replayStrict)

            [simulation]
            rate = \(rate)
            seed = \(seed)
            dropout_interval = \(dropoutInterval)
            dropout_duration = \(dropoutDuration)

            [disagreement]
            threshold = \(disagreementThreshold)
            hold = \(disagreementHold)
            """
    }
}
