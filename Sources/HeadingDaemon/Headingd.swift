// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
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
        abstract: "Reads compass headings from a source and prints one line per heading.",
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
            end of the file headingd prints a summary on standard error and exits 0.

            --source gpsd://HOST:PORT[/DEVICE] (or just 'gpsd' for gpsd://127.0.0.1:2947) reads a \
            live gpsd over TCP: its JSON reports and its raw NMEA, which headingd parses itself \
            (gpsd 3.22 drops THS and misreads HDG). When gpsd is down or goes away, each failed \
            attempt is a sourceUnavailable fault saying when the next one is (0.25 s doubling to \
            5 s, jittered), forever, until SIGINT or SIGTERM.

            Under systemd (Type=notify, see systemd/headingd.service) headingd sends READY=1, \
            STATUS= and STOPPING=1 on $NOTIFY_SOCKET, and WATCHDOG=1 every half $WATCHDOG_USEC; \
            with $JOURNAL_STREAM set, each line starts with its syslog priority (<6> headings, \
            <4> faults, <3> errors).

            Exit status: 0 on success; 64 for bad arguments; 65 with --strict when any line was \
            skipped or the file is in an unsupported (binary) format; 66 when the file cannot be read.
            """
    )

    @Option(help: ArgumentHelp("Where headings come from. Accepted: \(SourceSpecification.acceptedForms).", valueName: "source"))
    var source: SourceSpecification = .simulation

    @Option(help: ArgumentHelp("Exit 0 after printing this many headings (default: run until stopped).", valueName: "n"))
    var count: Int?

    @Option(help: "Output format: 'text' (one readable line) or 'json' (one JSON object per line).")
    var format: OutputFormat = .text

    @Option(
        help: ArgumentHelp(
            "Deliver a heading only when it differs from the last delivered one by at least this many degrees, measured on the circle (0 delivers all).",
            valueName: "degrees"
        )
    )
    var filter: Double = 0

    @Option(help: ArgumentHelp("Replay: a multiple of the recorded speed (10 is ten times faster), or 'max' for flat out.", valueName: "n|max"))
    var speed = ReplaySpeedArgument(speed: .asRecorded)

    @Flag(help: "Replay: start the recording again at its end, until stopped.")
    var loop = false

    @Flag(help: "Replay: exit 65 (EX_DATAERR) after the replay if any line was malformed or out of range.")
    var strict = false

    @Option(
        name: .customLong("min-course-speed"),
        help: ArgumentHelp(
            "Replay and gpsd: the speed in m/s below which course over ground gives no heading (it is noise when stationary).",
            valueName: "m/s"
        )
    )
    var minimumCourseSpeed: Double = 0.5

    @Option(
        help: ArgumentHelp(
            "Simulation: headings per second. Replay: headings per second for a recording that carries no times.",
            valueName: "hz"
        )
    )
    var rate: Double = 10

    @Option(help: ArgumentHelp("Simulation: seed; the same seed gives the same headings.", valueName: "n"))
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Simulation: seconds from one sensor dropout to the next; 0 for none.", valueName: "seconds"))
    var dropoutInterval: Double = 30

    @Option(help: ArgumentHelp("Simulation: how long each dropout lasts, in seconds.", valueName: "seconds"))
    var dropoutDuration: Double = 3

    @Flag(help: "Log headingd's own lifecycle at debug level on standard error.")
    var verbose = false

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1, not \(count).") }
        guard filter.isFinite, (0...180).contains(filter) else {
            throw ValidationError("--filter must be between 0 and 180 degrees, not \(filter).")
        }
        guard rate.isFinite, rate > 0, rate <= 100_000 else {
            throw ValidationError("--rate must be above 0 and at most 100000 Hz, not \(rate).")
        }
        guard minimumCourseSpeed.isFinite, minimumCourseSpeed >= 0 else {
            throw ValidationError("--min-course-speed must be 0 or more m/s, not \(minimumCourseSpeed).")
        }
        guard dropoutDuration.isFinite, dropoutDuration > 0 else {
            throw ValidationError("--dropout-duration must be above 0 seconds, not \(dropoutDuration).")
        }
        guard dropoutInterval.isFinite, dropoutInterval == 0 || dropoutInterval > dropoutDuration else {
            throw ValidationError(
                "--dropout-interval must be 0 (no dropouts) or longer than --dropout-duration (\(dropoutDuration) s), not \(dropoutInterval)."
            )
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            if LineWriter.usesJournalPriorities {
                return JournalLogHandler(label: label, logLevel: verbose ? .debug : .notice)
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .notice
            return handler
        }
        let logger = Logger(label: "headingd")

        let source = makeSource()
        let proxy = HeadingProxy(source: source, logger: logger)
        proxy.headingFilter = filter
        let bridge = HeadingNotificationBridge(proxy: proxy, center: .heading)
        defer { bridge.cancel() }

        let isFlatOutReplay = if case .replay = self.source { speed.speed == .flatOut } else { false }
        let log = StdoutHeadingLog(center: .heading, format: format, limit: count, batchesOutput: isFlatOutReplay)
        let replay = source as? ReplayHeadingSource
        // Shut down in reverse order: the proxy stops the source first, then the rest end.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: log, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "heading log")
        ]
        if let replay {
            services.append(
                .init(service: ReplayWatcher(source: replay), successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "replay")
            )
        }
        let notifier = NotifySocket.fromEnvironment().map { socket in
            SystemdNotifier(
                socket: socket, sourceName: source.name, watchdogInterval: SystemdNotifier.watchdogIntervalFromEnvironment()
            )
        }
        if let gpsd = source as? GPSDHeadingSource {
            services.append(
                .init(service: ConnectionStatusLog(source: gpsd, notifier: notifier), serviceName: "gpsd connection status")
            )
        }
        services.append(.init(service: HeadingProxyService(proxy: proxy), serviceName: "heading proxy"))
        // Last: started after the proxy is enabled (READY=1), and the first to hear of shutdown (STOPPING=1).
        if let notifier { services.append(.init(service: notifier, serviceName: "systemd notifier")) }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()

        if let replay { try finish(replay.summary, path: replay.configuration.path) }
    }

    /// Prints the replay's summary and turns its outcome into the exit status.
    private func finish(_ summary: ReplayHeadingSource.Summary, path: String) throws {
        LineWriter.standardError.write("headingd: replay of \(path): \(summary)")
        switch summary.outcome {
        case .unavailable:
            throw ExitCode(66)  // EX_NOINPUT
        case .unsupported where strict:
            LineWriter.standardError.write("headingd: --strict: \(path) is in an unsupported format", priority: .error)
            throw ExitCode(65)  // EX_DATAERR
        case .running, .completed, .stopped, .unsupported:
            break
        }
        if strict, summary.skippedLines > 0 {
            LineWriter.standardError.write(
                "headingd: --strict: \(summary.skippedLines) of the lines of \(path) were skipped", priority: .error
            )
            throw ExitCode(65)  // EX_DATAERR
        }
    }

    private func makeSource() -> any HeadingSource {
        switch source {
        case .simulation:
            SimulatedHeadingSource(
                configuration: HeadingSimulation.Configuration(
                    seed: seed,
                    rate: rate,
                    dropoutInterval: dropoutInterval == 0 ? nil : dropoutInterval,
                    dropoutDuration: dropoutDuration
                )
            )
        case .replay(let path):
            ReplayHeadingSource(
                configuration: .init(
                    path: path, speed: speed.speed, loops: loop, untimedRate: rate, minimumCourseSpeed: minimumCourseSpeed
                )
            )
        case .gpsd(let endpoint):
            GPSDHeadingSource(configuration: .init(endpoint: endpoint, minimumCourseSpeed: minimumCourseSpeed))
        }
    }
}
