// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration
import Foundation
import HeadingKit
import HeadingKitGPSD
import Logging
import ServiceLifecycle
import UnixSignals

/// The headingd command: reads headings from a source and prints them, until stopped.
@main
struct Headingd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "headingd",
        abstract: "Reads compass headings from one or more sources and prints one line per heading.",
        discussion: """
            With no options, headingd runs the built-in simulation (no hardware needed): a vessel \
            swinging through north in steady turns, with noise and a 3 s sensor dropout every 30 s \
            (each raises a deviceLost fault; headings resume after it). \
            Headings go to standard output; faults and authorization changes go to standard error, \
            one line each. headingd runs until SIGINT or SIGTERM, or until --count headings, and \
            then exits 0 after a clean shutdown.

            --source replay:PATH replays a recording: raw NMEA 0183 (HDT, HDG, HDM, THS, PASHR, \
            PTNTHTM; RMC and VTG course over ground from 0.5 m/s, about 1 knot), gpsd JSON as 'gpspipe -w' writes \
            it (ATT, TPV, DEVICE, ERROR), or gpsd's regression logs, mixed freely. Each bad line is \
            reported as 'FILE:LINE: reason' and skipped; the lines around it are delivered. At the \
            end of the file headingd prints a summary on standard error and exits 0 (when every \
            source is a replay; beside a live source, the others carry on).

            --source gpsd://HOST:PORT[/DEVICE] (or just 'gpsd' for gpsd://127.0.0.1:2947) reads a \
            live gpsd over TCP: its JSON reports and its raw NMEA, which headingd parses itself \
            (gpsd 3.22 drops THS and misreads HDG). When gpsd is down or goes away, each failed \
            attempt is a sourceUnavailable fault saying when the next one is (0.25 s doubling to \
            5 s, jittered), forever, until SIGINT or SIGTERM.

            Several --source options, best first: headings come from the best healthy source. A \
            source silent for --stale-after seconds raises a stale fault and, when it is the one \
            delivering, headings fail over at once to the next healthy one; they fail back only after \
            the better source has delivered again for --fail-back-hold seconds. Switches (sourceChanged) \
            and recoveries (recovered) are notices on standard error. A source may end in \
            ?offset=DEGREES&smoothing=SECONDS&deviation=HEADING:DEVIATION,... for its installation. \
            When a device gives only magnetic (or only true) heading, the other is filled in from the \
            variation it sent, else from the World Magnetic Model 2025 at the last reported position \
            (or --position); JSON says which in variationOrigin.

            Under systemd (Type=notify, see systemd/headingd.service) headingd sends READY=1, \
            STATUS= and STOPPING=1 on $NOTIFY_SOCKET, and WATCHDOG=1 every half $WATCHDOG_USEC; \
            with $JOURNAL_STREAM set, each line starts with its syslog priority (<6> headings, \
            <5> notices, <4> faults, <3> errors).

            Settings come from /etc/headingd/headingd.toml (or --config PATH), then \
            conf.d/*.toml beside it, then HEADINGD_* environment variables, then these flags; \
            --check-config prints the result. SIGHUP reads them again (a broken file keeps the \
            running settings).

            Exit status: 0 on success; 64 for bad arguments; 78 for a bad configuration; 65 with --strict when any line was \
            skipped or the file is in an unsupported (binary) format; 66 when the file cannot be read.
            """
    )

    @Option(
        name: .customLong("source"),
        help: ArgumentHelp(
            "Where headings come from: \(SourceSpecification.acceptedForms). Give it more than once for several sources, best first: headings come from the best healthy one. (default: simulation)",
            valueName: "source"
        )
    )
    var sources: [String] = []

    @Option(
        name: .customLong("stale-after"),
        help: ArgumentHelp(
            "Seconds without a heading before a source is stale (a stale fault; failover when it is the active one). (default: 2)",
            valueName: "seconds"
        )
    )
    var staleAfter: Double?

    @Option(
        name: .customLong("fail-back-hold"),
        help: ArgumentHelp("Seconds a better source must deliver again before headings fail back to it. (default: 5)", valueName: "seconds")
    )
    var failBackHold: Double?

    @Option(
        help: ArgumentHelp(
            "Degrees two healthy sources may disagree by, for --disagreement-hold seconds, before a disagreement fault; 0 for never. (default: 10)",
            valueName: "degrees"
        )
    )
    var disagreement: Double?

    @Option(
        name: .customLong("disagreement-hold"),
        help: ArgumentHelp("Seconds a disagreement must last before the fault. (default: 10)", valueName: "seconds")
    )
    var disagreementHold: Double?

    @Option(
        help: ArgumentHelp(
            "The vessel's position when no source reports one, for the World Magnetic Model's variation: LATITUDE,LONGITUDE[,ALTITUDE] (degrees North and East, metres). (default: none)",
            valueName: "lat,lon"
        )
    )
    var position: String?

    @Option(help: ArgumentHelp("Exit 0 after printing this many headings (default: run until stopped).", valueName: "n"))
    var count: Int?

    @Option(help: "Output format: 'text' (one readable line) or 'json' (one JSON object per line). (default: text)")
    var format: OutputFormat?

    @Option(
        help: ArgumentHelp(
            "Deliver a heading only when it differs from the last delivered one by at least this many degrees, measured on the circle (0 delivers all). (default: 0)",
            valueName: "degrees"
        )
    )
    var filter: Double?

    @Option(
        help: ArgumentHelp(
            "Replay: a multiple of the recorded speed (10 is ten times faster), or 'max' for flat out. (default: 1)", valueName: "n|max"
        )
    )
    var speed: ReplaySpeedArgument?

    @Flag(help: "Replay: start the recording again at its end, until stopped.")
    var loop = false

    @Flag(help: "Replay: exit 65 (EX_DATAERR) after the replay if any line was malformed or out of range.")
    var strict = false

    @Option(
        name: .customLong("min-course-speed"),
        help: ArgumentHelp(
            "Replay and gpsd: the speed in m/s below which course over ground gives no heading (it is noise when stationary). (default: 0.5)",
            valueName: "m/s"
        )
    )
    var minimumCourseSpeed: Double?

    @Option(
        help: ArgumentHelp(
            "Simulation: headings per second. Replay: headings per second for a recording that carries no times. (default: 10)",
            valueName: "hz"
        )
    )
    var rate: Double?

    @Option(help: ArgumentHelp("Simulation: seed; the same seed gives the same headings. (default: 1)", valueName: "n"))
    var seed: UInt64?

    @Option(help: ArgumentHelp("Simulation: seconds from one sensor dropout to the next; 0 for none. (default: 30)", valueName: "seconds"))
    var dropoutInterval: Double?

    @Option(help: ArgumentHelp("Simulation: how long each dropout lasts, in seconds. (default: 3)", valueName: "seconds"))
    var dropoutDuration: Double?

    @Flag(help: "Log headingd's own lifecycle at debug level on standard error.")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "The main configuration file; drop-ins are read from conf.d/*.toml beside it. (default: \(SettingsLoader.defaultMainFile))",
            valueName: "path"
        )
    )
    var config: String?

    @Flag(
        name: .customLong("check-config"),
        help: "Check the configuration (the file given after this flag, or the usual files) with the environment and flags, print the effective settings, and exit: 0 when valid, 78 (EX_CONFIG) when not."
    )
    var checkConfig = false

    @Argument(help: ArgumentHelp("With --check-config: the main configuration file to check.", valueName: "path"))
    var checkConfigPath: String?

    func validate() throws {
        if checkConfigPath != nil, !checkConfig {
            throw ValidationError("A PATH argument is only accepted after --check-config.")
        }
        if let count, count < 1 { throw ValidationError("--count must be at least 1, not \(count).") }
        for text in sources {
            if case .failure(let error) = SourceSpecification.parse(text) { throw ValidationError("--source: \(error.reason).") }
        }
        // The processor's flags are checked by the same schema as their configuration keys.
        let settings = flagSettings
        for (flag, key) in [
            ("--stale-after", "stale_after"), ("--fail-back-hold", "fail_back_hold"), ("--disagreement", "disagreement.threshold"),
            ("--disagreement-hold", "disagreement.hold"), ("--position", "position"),
        ] {
            guard let content = settings[key], let schema = DaemonSettings.keys.first(where: { $0.name == key }) else { continue }
            if case .failure(let error) = schema.validate(content) {
                let given = switch content {
                case .double(let value): "\(value)"
                case .string(let text): "'\(text)'"
                default: "\(content)"
                }
                throw ValidationError("\(flag) \(error.reason); not \(given).")
            }
        }
        if let filter, !(filter.isFinite && (0...180).contains(filter)) {
            throw ValidationError("--filter must be between 0 and 180 degrees, not \(filter).")
        }
        if let rate, !(rate.isFinite && rate > 0 && rate <= 100_000) {
            throw ValidationError("--rate must be above 0 and at most 100000 Hz, not \(rate).")
        }
        if let minimumCourseSpeed, !(minimumCourseSpeed.isFinite && minimumCourseSpeed >= 0) {
            throw ValidationError("--min-course-speed must be 0 or more m/s, not \(minimumCourseSpeed).")
        }
        if let seed, seed > UInt64(Int.max) { throw ValidationError("--seed must be at most \(Int.max), not \(seed).") }
        if let dropoutDuration, !(dropoutDuration.isFinite && dropoutDuration > 0) {
            throw ValidationError("--dropout-duration must be above 0 seconds, not \(dropoutDuration).")
        }
        if let dropoutInterval {
            let duration = dropoutDuration ?? DaemonSettings().dropoutDuration
            guard dropoutInterval.isFinite, dropoutInterval == 0 || dropoutInterval > duration else {
                throw ValidationError(
                    "--dropout-interval must be 0 (no dropouts) or longer than --dropout-duration (\(duration) s), not \(dropoutInterval)."
                )
            }
        }
    }

    /// The settings given as flags, by configuration key: they override every other layer.
    private var flagSettings: [String: ConfigContent] {
        var values: [String: ConfigContent] = [:]
        if !sources.isEmpty { values["source"] = .stringArray(sources) }
        if let staleAfter { values["stale_after"] = .double(staleAfter) }
        if let failBackHold { values["fail_back_hold"] = .double(failBackHold) }
        if let disagreement { values["disagreement.threshold"] = .double(disagreement) }
        if let disagreementHold { values["disagreement.hold"] = .double(disagreementHold) }
        if let position { values["position"] = .string(position) }
        if let format { values["format"] = .string(format.rawValue) }
        if let filter { values["filter"] = .double(filter) }
        if let minimumCourseSpeed { values["min_course_speed"] = .double(minimumCourseSpeed) }
        if verbose { values["verbose"] = .bool(true) }
        if let speed { values["replay.speed"] = .string(speed.multiplierDescription) }
        if loop { values["replay.loop"] = .bool(true) }
        if strict { values["replay.strict"] = .bool(true) }
        if let rate { values["simulation.rate"] = .double(rate) }
        if let seed { values["simulation.seed"] = .int(Int(seed)) }
        if let dropoutInterval { values["simulation.dropout_interval"] = .double(dropoutInterval) }
        if let dropoutDuration { values["simulation.dropout_duration"] = .double(dropoutDuration) }
        return values
    }

    /// Where the settings come from: files, environment and these flags.
    private var settingsLoader: SettingsLoader {
        SettingsLoader(
            mainFile: checkConfigPath ?? config ?? SettingsLoader.defaultMainFile,
            mainFileIsRequired: checkConfigPath != nil || config != nil,
            environment: ProcessInfo.processInfo.environment,
            flags: flagSettings
        )
    }

    /// Loads the layered settings; prints the error and exits 78 (EX_CONFIG) when one is wrong.
    private func loadSettings(_ loader: SettingsLoader) throws -> (settings: DaemonSettings, files: [String]) {
        do {
            return try loader.load()
        } catch {
            LineWriter.standardError.write("headingd: configuration: \(error)", priority: .error)
            throw ExitCode(78)  // EX_CONFIG
        }
    }

    func run() async throws {
        let loader = settingsLoader
        let (settings, files) = try loadSettings(loader)
        if checkConfig {
            let read = files.isEmpty ? "none (defaults, environment and flags only)" : files.joined(separator: ", ")
            LineWriter.standardOutput.write("# headingd: configuration files read: \(read)\n\(settings.tomlDescription)")
            return
        }
        let verbose = settings.verbose
        LoggingSystem.bootstrap { label in
            if LineWriter.usesJournalPriorities {
                return JournalLogHandler(label: label, logLevel: verbose ? .debug : .notice)
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .notice
            return handler
        }
        let logger = Logger(label: "headingd")
        let notifySocket = NotifySocket.fromEnvironment()
        var current = settings
        // One service group per configuration: a SIGHUP with a valid configuration ends the group
        // and the loop starts the next one with the new settings.
        while true {
            let reloader = ConfigurationReloader(notifySocket: notifySocket) { () throws(ConfigurationError) in
                try loader.load().settings
            }
            let replays = try await runServices(settings: current, reloader: reloader, notifySocket: notifySocket, logger: logger)
            if let next = reloader.pendingSettings {
                current = next
                continue
            }
            try finish(replays, strict: current.replayStrict)
            return
        }
    }

    /// Runs headingd's services with `settings` until shutdown, the end of the replays, or a reload.
    /// - Returns: The replay sources among the sources.
    private func runServices(
        settings: DaemonSettings, reloader: ConfigurationReloader, notifySocket: NotifySocket?, logger: Logger
    ) async throws -> [ReplayHeadingSource] {
        let sources = settings.sources.map { makeSource($0, settings: settings) }
        // The heading filter is the processor's: filtered in a proxy, a steady heading would look stale.
        let proxies = sources.map { HeadingProxy(source: $0, logger: logger) }
        // Every source's events pass through the processor, which picks the one to deliver from.
        let processor = HeadingProcessor(
            inputs: Array(zip(proxies, settings.sources.map(\.installation))), configuration: settings.processorConfiguration
        )
        let bridge = HeadingNotificationBridge(processor: processor, center: .heading)
        defer { bridge.cancel() }
        processor.start()
        defer { processor.stop() }

        let replays = sources.compactMap { $0 as? ReplayHeadingSource }
        // Only a lone flat-out replay batches its output; a live source beside it must not wait for a block.
        let isFlatOutReplay = sources.count == 1 && replays.count == 1 && settings.replaySpeed.speed == .flatOut
        let log = StdoutHeadingLog(center: .heading, format: settings.format, limit: count, batchesOutput: isFlatOutReplay)
        // Shut down in reverse order: the proxies stop their sources first, then the rest end.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: log, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "heading log"),
            .init(service: reloader, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "configuration reloader"),
        ]
        // Replays end headingd when they are all there is and all have ended; beside a live source they just stop.
        if !replays.isEmpty, replays.count == sources.count {
            services.append(
                .init(service: ReplayWatcher(sources: replays), successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "replay")
            )
        } else {
            for replay in replays {
                services.append(.init(service: ReplayWatcher(sources: [replay]), successTerminationBehavior: .ignore, serviceName: "replay \(replay.name)"))
            }
        }
        let notifier = notifySocket.map { socket in
            SystemdNotifier(
                socket: socket, sourceName: sources.map(\.name).joined(separator: ", "),
                watchdogInterval: SystemdNotifier.watchdogIntervalFromEnvironment(), isReloading: { reloader.isReloading }
            )
        }
        for case let gpsd as GPSDHeadingSource in sources {
            services.append(
                .init(service: ConnectionStatusLog(source: gpsd, notifier: notifier), serviceName: "gpsd connection status \(gpsd.name)")
            )
        }
        for proxy in proxies {
            services.append(.init(service: HeadingProxyService(proxy: proxy), serviceName: "heading proxy \(proxy.source.name)"))
        }
        // Last: started after the proxies are enabled (READY=1), and the first to hear of shutdown (STOPPING=1).
        if let notifier { services.append(.init(service: notifier, serviceName: "systemd notifier")) }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        for case let gpsd as GPSDHeadingSource in sources { await gpsd.waitUntilStopped() }
        return replays
    }

    /// Prints each replay's summary and turns their outcomes into the exit status: the worst wins.
    private func finish(_ replays: [ReplayHeadingSource], strict: Bool) throws {
        var status: Int32 = 0
        for replay in replays {
            let summary = replay.summary
            let path = replay.configuration.path
            LineWriter.standardError.write("headingd: replay of \(path): \(summary)")
            switch summary.outcome {
            case .unavailable:
                status = max(status, 66)  // EX_NOINPUT
            case .unsupported where strict:
                LineWriter.standardError.write("headingd: --strict: \(path) is in an unsupported format", priority: .error)
                status = max(status, 65)  // EX_DATAERR
            case .running, .completed, .stopped, .unsupported:
                break
            }
            if strict, summary.skippedLines > 0 {
                LineWriter.standardError.write(
                    "headingd: --strict: \(summary.skippedLines) of the lines of \(path) were skipped", priority: .error
                )
                status = max(status, 65)  // EX_DATAERR
            }
        }
        if status != 0 { throw ExitCode(status) }
    }

    private func makeSource(_ specification: SourceSpecification, settings: DaemonSettings) -> any HeadingSource {
        switch specification.kind {
        case .simulation:
            SimulatedHeadingSource(
                configuration: HeadingSimulation.Configuration(
                    seed: settings.seed,
                    rate: settings.rate,
                    dropoutInterval: settings.dropoutInterval == 0 ? nil : settings.dropoutInterval,
                    dropoutDuration: settings.dropoutDuration
                )
            )
        case .replay(let path):
            ReplayHeadingSource(
                configuration: .init(
                    path: path, speed: settings.replaySpeed.speed, loops: settings.replayLoops, untimedRate: settings.rate,
                    minimumCourseSpeed: settings.minimumCourseSpeed
                )
            )
        case .gpsd(let endpoint):
            GPSDHeadingSource(configuration: .init(endpoint: endpoint, minimumCourseSpeed: settings.minimumCourseSpeed))
        }
    }
}
