// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import Foundation
import HeadingKit

/// headingd's effective settings, after files, drop-ins, environment and flags (see
/// ``SettingsLoader``), with the defaults for whatever none of them sets.
struct DaemonSettings: Sendable, Equatable {
    var source = SourceSpecification.simulation
    var format = OutputFormat.text
    var filter = 0.0
    var minimumCourseSpeed = 0.5
    var verbose = false
    var replaySpeed = ReplaySpeedArgument(speed: .asRecorded)
    var replayLoops = false
    var replayStrict = false
    var rate = 10.0
    var seed: UInt64 = 1
    var dropoutInterval = 30.0
    var dropoutDuration = 3.0

    /// Every key headingd reads, with its checks.
    static let keys: [SettingKey] = [
        SettingKey(name: "source", kind: .string) { content in
            guard case .string(let text) = content, SourceSpecification(argument: text) != nil else {
                return "must be \(SourceSpecification.acceptedForms)"
            }
            return nil
        },
        SettingKey(name: "format", kind: .string) { content in
            guard case .string(let text) = content, OutputFormat(rawValue: text) != nil else { return "must be 'text' or 'json'" }
            return nil
        },
        SettingKey(name: "filter", kind: .double) { number($0, in: 0...180, "between 0 and 180 degrees") },
        SettingKey(name: "min_course_speed", kind: .double) { number($0, in: 0...1000, "between 0 and 1000 m/s") },
        SettingKey(name: "verbose", kind: .bool) { _ in nil },
        SettingKey(name: "replay.speed", kind: .string) { content in
            guard case .string(let text) = content, ReplaySpeedArgument(argument: text) != nil else {
                return "must be a multiple above 0 (\"10\") or \"max\""
            }
            return nil
        },
        SettingKey(name: "replay.loop", kind: .bool) { _ in nil },
        SettingKey(name: "replay.strict", kind: .bool) { _ in nil },
        SettingKey(name: "simulation.rate", kind: .double) { number($0, in: 0.001...100_000, "above 0 and at most 100000 Hz") },
        SettingKey(name: "simulation.seed", kind: .integer) { content in
            guard case .int(let seed) = content, seed >= 0 else { return "must be 0 or more" }
            return nil
        },
        SettingKey(name: "simulation.dropout_interval", kind: .double) { number($0, in: 0...86_400, "between 0 and 86400 s") },
        SettingKey(name: "simulation.dropout_duration", kind: .double) { number($0, in: 0.001...86_400, "above 0 s") },
    ]

    private static func number(_ content: ConfigContent, in range: ClosedRange<Double>, _ phrase: String) -> String? {
        guard case .double(let value) = content, value.isFinite, range.contains(value) else { return "must be \(phrase)" }
        return nil
    }

    /// The settings a reader gives, with defaults for what it does not have.
    init(reader: ConfigReader) {
        let defaults = DaemonSettings()
        source = reader.string(forKey: "source").flatMap(SourceSpecification.init(argument:)) ?? defaults.source
        format = reader.string(forKey: "format").flatMap(OutputFormat.init(rawValue:)) ?? defaults.format
        filter = reader.double(forKey: "filter") ?? defaults.filter
        minimumCourseSpeed = reader.double(forKey: "min_course_speed") ?? defaults.minimumCourseSpeed
        verbose = reader.bool(forKey: "verbose") ?? defaults.verbose
        replaySpeed = reader.string(forKey: "replay.speed").flatMap(ReplaySpeedArgument.init(argument:)) ?? defaults.replaySpeed
        replayLoops = reader.bool(forKey: "replay.loop") ?? defaults.replayLoops
        replayStrict = reader.bool(forKey: "replay.strict") ?? defaults.replayStrict
        rate = reader.double(forKey: "simulation.rate") ?? defaults.rate
        seed = reader.int(forKey: "simulation.seed").map { UInt64($0) } ?? defaults.seed
        dropoutInterval = reader.double(forKey: "simulation.dropout_interval") ?? defaults.dropoutInterval
        dropoutDuration = reader.double(forKey: "simulation.dropout_duration") ?? defaults.dropoutDuration
    }

    /// The defaults.
    init() {}

    /// The settings as a TOML document, for `--check-config`.
    var tomlDescription: String {
        func quoted(_ text: String) -> String { HeadingLineFormatter.quoted(text) }
        return """
            source = \(quoted(source.description))
            format = \(quoted(format.rawValue))
            filter = \(filter)
            min_course_speed = \(minimumCourseSpeed)
            verbose = \(verbose)

            [replay]
            speed = \(quoted(replaySpeed.speed == .flatOut ? "max" : replaySpeed.multiplierDescription))
            loop = \(replayLoops)
            strict = \(replayStrict)

            [simulation]
            rate = \(rate)
            seed = \(seed)
            dropout_interval = \(dropoutInterval)
            dropout_duration = \(dropoutDuration)
            """
    }
}

extension ReplaySpeedArgument {
    /// The multiple as text, such as `10`; `max` for flat out.
    var multiplierDescription: String {
        switch speed {
        case .flatOut: "max"
        case .recorded(multiplier: let multiplier): multiplier == multiplier.rounded() ? String(Int(multiplier)) : String(multiplier)
        }
    }
}
