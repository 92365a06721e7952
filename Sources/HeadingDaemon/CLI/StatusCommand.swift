// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation

/// `headingd status`: asks the running headingd, like `chronyc tracking` asks chronyd, and prints
/// the heading, the source steering, each source, the active faults and the outputs; `--json`
/// prints the report itself. Exit status 0 when a healthy source delivers, 3 when none does, 69
/// (EX_UNAVAILABLE) when no headingd answers, 78 (EX_CONFIG) when the configuration cannot be read.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Asks the running headingd how it is: the heading, its sources, faults and outputs.",
        discussion: """
            headingd serves its status on its HTTP listener when the status service is on ([status] enabled = true, \
            or --status): on the Signal K output's listener when that runs, else on [http] listen (127.0.0.1:9947). \
            Without --url, the listener is found in the same configuration files and HEADINGD_* environment the \
            daemon reads. Exit status: 0 when a healthy source delivers the heading, 3 when none does (stale, no \
            heading, every source faulted), 69 when no headingd answers, 78 when the configuration cannot be read.
            """
    )

    @Option(help: ArgumentHelp("The main configuration file the daemon reads. (default: \(SettingsLoader.defaultMainFile))", valueName: "path"))
    var config: String?

    @Option(help: ArgumentHelp("Ask this listener instead of the configured one: http://HOST:PORT.", valueName: "url"))
    var url: String?

    @Flag(help: "Print the report as JSON (the same object as /status.json).")
    var json = false

    @Option(help: ArgumentHelp("Seconds to wait for an answer.", valueName: "seconds"))
    var timeout: Double = 3

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 300 else { throw ValidationError("--timeout must be between 0 and 300 seconds.") }
    }

    func run() async throws {
        let (host, port) = try listener()
        let client = StatusClient(host: host, port: port, timeout: .milliseconds(Int((timeout * 1000).rounded())))
        let report: StatusReport
        do {
            report = try await client.report()
        } catch {
            LineWriter.standardError.write("headingd status: \(error)")
            throw ExitCode(69)
        }
        if json {
            LineWriter.standardOutput.write(String(decoding: report.json(), as: UTF8.self))
        } else {
            LineWriter.standardOutput.write(Self.text(report))
        }
        if !report.isHealthy { throw ExitCode(3) }
    }

    /// The listener to ask: `--url`, else the configured one.
    private func listener() throws -> (String, Int) {
        if let url {
            guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host, !host.isEmpty,
                let port = components.port ?? 80 as Int?, (1...65535).contains(port)
            else {
                LineWriter.standardError.write("headingd status: --url must be http://HOST:PORT, not \(url)")
                throw ExitCode(64)
            }
            return (host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port)
        }
        let loader = SettingsLoader(
            mainFile: config ?? SettingsLoader.defaultMainFile, mainFileIsRequired: config != nil,
            environment: ProcessInfo.processInfo.environment, flags: [:], parserExecutable: "/proc/self/exe"
        )
        let settings: DaemonSettings
        do {
            settings = try loader.load().settings
        } catch {
            LineWriter.standardError.write("headingd status: configuration: \(error)")
            throw ExitCode(78)
        }
        guard settings.statusEnabled else {
            LineWriter.standardError.write(
                "headingd status: the status service is off in the configuration ([status] enabled = false): turn it on, or give --url"
            )
            throw ExitCode(69)
        }
        let address = settings.signalKEnabled ? settings.signalKListen : settings.httpListen
        // A listener on every address is asked on loopback.
        let host = switch address.host {
        case "0.0.0.0": "127.0.0.1"
        case "::": "::1"
        default: address.host
        }
        return (host, address.port)
    }

    /// The report as lines a person reads, like `chronyc tracking`.
    static func text(_ report: StatusReport) -> String {
        let heading = report.heading
        func degrees(_ value: Double?, _ suffix: String) -> String? { value.map { String(format: "%.1f° %@", $0, suffix) } }
        let values = [degrees(heading.trueHeading, "true"), degrees(heading.magneticHeading, "magnetic")].compactMap { $0 }
        let state = switch heading.state {
        case "ok" where !report.isHealthy:
            // The heading is fresh, but no source delivers now (a dropout's first moments): the
            // line says why the exit status is 3.
            "NOT HEALTHY: \(duration(heading.ageSeconds)) old, but no source is healthy ("
                + (report.sources.isEmpty ? "no sources" : report.sources.map { "\($0.name) \($0.state)" }.joined(separator: ", ")) + ")"
        case "ok": "ok, \(duration(heading.ageSeconds)) old"
        case "stale": "STALE for \(duration(heading.ageSeconds))"
        default: "NO HEADING for \(duration(heading.ageSeconds))"
        }
        var lines = [
            "Heading       : \(values.isEmpty ? "none" : values.joined(separator: ", ")) (\(state))",
            "Variation     : "
                + (heading.magneticVariation.map { String(format: "%.1f° %@", abs($0), $0 < 0 ? "W" : "E") + (heading.variationOrigin.map { " (\($0))" } ?? "") }
                    ?? "unknown"),
            "Steering      : \(report.sources.first(where: \.steering)?.name ?? "none")",
            "Uptime        : \(duration(report.uptimeSeconds)) (headingd \(report.version))",
            "Sources       :",
        ]
        for source in report.sources {
            let fault = source.lastFault.map { "last fault \($0.code): \($0.reason)" } ?? "no fault"
            lines.append(
                "  \(source.steering ? "*" : " ") \(source.name)  \(source.state) for \(duration(source.secondsInState)), "
                    + String(format: "%.0f", source.headingsPerSecond) + "/s, \(source.headings) headings, \(source.errors) errors, \(fault)"
            )
            if let calibration = source.calibration { lines.append("      calibration: \(calibration.summary)") }
            if let deviation = source.deviation { lines.append("      deviation: \(deviation)") }
        }
        lines.append("Faults        :" + (report.faults.isEmpty ? " none" : ""))
        for fault in report.faults { lines.append("    \(fault.source): \(fault.code): \(fault.reason) (for \(duration(report.time - fault.since)))") }
        lines.append("Outputs       :" + (report.outputs.isEmpty ? " none" : ""))
        for output in report.outputs {
            lines.append("    \(output.name): \(output.clients) clients, \(output.messages) sent, \(output.messagesDropped) dropped" + (output.state.map { "; \($0)" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }

    /// Seconds as a person reads them.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "—" }
        if seconds < 10 { return String(format: "%.1f s", max(0, seconds)) }
        // Clamped: the report is a peer's JSON, and Int(1e300) traps.
        let whole = Int(min(seconds, 1e12).rounded(.down))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        if whole < 86400 { return "\(whole / 3600) h \(whole % 3600 / 60) min" }
        return "\(whole / 86400) d \(whole % 86400 / 3600) h"
    }
}
