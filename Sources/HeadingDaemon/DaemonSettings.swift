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
    var replaySpeed = ReplaySpeedArgument(speed: .asRecorded)
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
        SettingKey(name: "source", kind: .stringList) { content in
            guard case .stringArray(let texts) = content, !texts.isEmpty else { return "must name at least one source" }
            for text in texts {
                if case .failure(let error) = SourceSpecification.parse(text) { return error.reason }
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
        SettingKey(name: "stale_after", kind: .double) { number($0, in: 0.01...3600, "between 0.01 and 3600 seconds") },
        SettingKey(name: "fail_back_hold", kind: .double) { number($0, in: 0...3600, "between 0 and 3600 seconds") },
        SettingKey(name: "disagreement.threshold", kind: .double) { number($0, in: 0...180, "between 0 (never) and 180 degrees") },
        SettingKey(name: "disagreement.hold", kind: .double) { number($0, in: 0...3600, "between 0 and 3600 seconds") },
        SettingKey(name: "position", kind: .string) { content in
            guard case .string(let text) = content, parsePosition(text) != nil else {
                return "must be LATITUDE,LONGITUDE[,ALTITUDE], such as 54.32,10.14 (degrees North and East, metres above the ellipsoid)"
            }
            return nil
        },
    ]

    /// A position written `LATITUDE,LONGITUDE[,ALTITUDE]`.
    static func parsePosition(_ text: String) -> GeographicPosition? {
        let numbers = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard (2...3).contains(numbers.count), numbers.allSatisfy({ $0 != nil }) else { return nil }
        return GeographicPosition(latitude: numbers[0]!, longitude: numbers[1]!, altitude: numbers.count == 3 ? numbers[2] : nil)
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
        replaySpeed = reader.string(forKey: "replay.speed").flatMap(ReplaySpeedArgument.init(argument:)) ?? defaults.replaySpeed
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

extension ReplaySpeedArgument {
    /// The multiple as text, such as `10`; `max` for flat out.
    var multiplierDescription: String {
        switch speed {
        case .flatOut: "max"
        case .recorded(multiplier: let multiplier): multiplier == multiplier.rounded() ? String(Int(multiplier)) : String(multiplier)
        }
    }
}
