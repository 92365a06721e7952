// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration
import Foundation
import Logging
import Synchronization

/// The headingd command: parses its options and hands over to a ``PipelineRunner``.
@main
struct Headingd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "headingd",
        abstract: "Reads compass headings from one or more sources and prints one line per heading.",
        usage: "headingd [<options>] [<path>] <subcommand>",
        discussion: discussion,
        // Dispatched in main() before the daemon's options are parsed; listed here for --help and the man page.
        subcommands: [ScanCommand.self, StatusCommand.self, CalibrateCommand.self, DeviationCommand.self]
    )

    /// headingd's version, as the Debian package's changelog states it (a test keeps them equal).
    static let version = "0.1.0"

    // The settings' options (--source, --stale-after …) are not declared here: SettingOptions reads
    // them from the settings' declarations before ArgumentParser sees the rest, and adds them to
    // --help and the man page.
    @OptionGroup(title: RunOptions.title) var runOptions: RunOptions
    @OptionGroup(title: "Configuration") var configurationOptions: ConfigurationOptions

    /// The settings the command line gave (``SettingOptions``), for ``run()``.
    private static let givenSettings = Mutex<[String: ConfigContent]>([:])

    /// Starts headingd, or the configuration-checking child that ``IsolatedTOMLCheck`` starts
    /// (before any option is parsed, so the child does no more than parse its input).
    static func main() async {
        if CommandLine.arguments.count == 2, CommandLine.arguments[1] == IsolatedTOMLCheck.childArgument {
            IsolatedTOMLCheck.runChild()
        }
        // `headingd scan …`, `headingd status …`, `headingd calibrate …`, `headingd deviation …` and `headingd help [SUBCOMMAND]`, before
        // the daemon's options (whose --check-config PATH argument would take the word) are parsed.
        let words = Array(CommandLine.arguments.dropFirst())
        if words.first == "status" {
            await StatusCommand.main(Array(words.dropFirst()))
            return
        }
        if words.first == "calibrate" {
            CalibrateCommand.main(Array(words.dropFirst()))
            return
        }
        if words.first == "deviation" {
            await DeviationCommand.main(Array(words.dropFirst()))
            return
        }
        if words.first == "scan" {
            ScanCommand.main(Array(words.dropFirst()))
            return
        }
        if words.first == "help", words.count <= 2 {
            switch words.count == 2 ? words[1] : nil {
            case nil: LineWriter.standardOutput.write(SettingOptions.help())
            case "status": await StatusCommand.main(["--help"])
            case "calibrate": CalibrateCommand.main(["--help"])
            case "deviation": await DeviationCommand.main(["--help"])
            case "scan": ScanCommand.main(["--help"])
            case let other?:
                LineWriter.standardError.write("headingd: no subcommand \(other); the ones there are: scan, status, calibrate, deviation")
                Foundation.exit(64)
            }
            return
        }
        let parsed: SettingOptions.Parsed
        switch SettingOptions.parse(words) {
        case .success(let given): parsed = given
        case .failure(let error) where error.code == .usage:
            LineWriter.standardError.write("Error: \(error.reason)\n  See 'headingd --help' for more information.", priority: .error)
            Foundation.exit(64)
        case .failure(let error):
            LineWriter.standardError.write("headingd: configuration: \(error)", priority: .error)
            Foundation.exit(ExitStatus.configurationError.rawValue)
        }
        if parsed.asksForHelp {
            LineWriter.standardOutput.write(SettingOptions.help())
            return
        }
        if parsed.asksForDescription {
            LineWriter.standardOutput.write(SettingOptions.dumpHelp())
            return
        }
        givenSettings.withLock { $0 = parsed.settings }
        _ = HangupSignals.process  // from here on a SIGHUP is kept for the reloader, never fatal, never lost
        StopDeadline.arm(requesting: .process)  // and a SIGTERM or SIGINT is a graceful shutdown, never lost
        await main(parsed.rest)
    }

    func run() async throws {
        if configurationOptions.version {
            LineWriter.standardOutput.write(Self.version)
            return
        }
        if configurationOptions.defaultConfig {
            var text = ShippedConfiguration.text()
            if let error = text.withUTF8({ LineWriter.standardOutput.write($0) }) {
                LineWriter.standardError.write("headingd: cannot write the configuration file: \(error)", priority: .error)
                throw ExitCode(ExitStatus.outputError.rawValue)
            }
            return
        }
        let loader = SettingsLoader(
            mainFile: configurationOptions.mainFile,
            mainFileIsRequired: configurationOptions.mainFileIsRequired,
            environment: ProcessInfo.processInfo.environment,
            flags: Self.givenSettings.withLock { $0 },
            parserExecutable: "/proc/self/exe"
        )
        let settings: DaemonSettings
        let files: [String]
        do {
            (settings, files) = try loader.load()
        } catch {
            LineWriter.standardError.write("headingd: configuration: \(error)", priority: .error)
            throw ExitCode(ExitStatus.configurationError.rawValue)
        }
        if configurationOptions.checkConfig {
            let read = files.isEmpty ? "none (defaults, environment and options only)" : files.joined(separator: ", ")
            LineWriter.standardOutput.write("# headingd: configuration files read: \(read)\n\(settings.tomlDescription)")
            return
        }
        bootstrapLogging(verbose: settings.verbose)
        let shutdown = ShutdownRequest.process
        let runner = PipelineRunner(
            loader: loader, headingLimit: runOptions.count, shutdown: shutdown, hangups: .process,
            logger: Logger(label: "headingd")
        )
        let status = try await runner.run(settings)
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// Logs to standard error: with journald's priority prefixes under systemd, else plain lines.
    private func bootstrapLogging(verbose: Bool) {
        LoggingSystem.bootstrap { label in
            if LineWriter.usesJournalPriorities {
                return JournalLogHandler(label: label, logLevel: verbose ? .debug : .notice)
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .notice
            return handler
        }
    }
}
