// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import HeadingKit
import Logging
import Synchronization

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// `headingd deviation`: learns a magnetic compass's deviation card against a true reference on
/// board, live or from a recording, and prints it with the `deviation=` source
/// parameter that applies it.
struct DeviationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deviation",
        abstract: "Learns a compass's deviation card against a true reference (a gyro, a dual-antenna GNSS).",
        discussion: """
            Reads a magnetic compass (--source) and a true reference (--reference), any source URL headingd \
            takes (talker= and device= included), live or replayed: a replay is read flat out unless --speed \
            says otherwise, and timed by its own clock, so record with times (candump -L, YD RAW, canboat's \
            CSV, gpspipe -w); live sources are read until Ctrl-C or --seconds. Each compass heading is paired \
            with the reference's at the same moment (within 0.5 s either side, interpolated), only while the \
            reference turns at most 3 degrees a second; the reference's true heading minus the variation (its \
            own, else the World Magnetic Model's at its position or --position) is the magnetic heading. The \
            classic five coefficients are fitted by least squares, deviation = A + B sin(h) + C cos(h) + \
            D sin(2h) + E cos(2h) with h the compass heading, outliers rejected; it prints them, the card every \
            15 degrees, the RMS residual, and the deviation= parameter to paste into the compass's source \
            URL. A card needs the boat to have pointed everywhere: with fewer than 20 of the 24 sectors of 15 \
            degrees covered, or two neighbouring ones empty, it says which headings are missing and exits 65. \
            Course over ground is a reference only with --reference-cog, and only above --min-course-speed \
            (2 m/s here).
            """
    )

    @Option(help: ArgumentHelp("The magnetic compass, as a source URL (its headings before any deviation= card).", valueName: "url"))
    var source: String

    @Option(help: ArgumentHelp("The true reference: a gyro, a dual-antenna GNSS compass.", valueName: "url"))
    var reference: String

    @Flag(help: "Print the card as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Replay speed: a multiple, or max.", valueName: "speed"))
    var speed: String = "max"

    @Flag(help: "Take course over ground as the reference (in calm water, at speed).")
    var referenceCog = false

    @Option(help: ArgumentHelp("The speed below which course over ground is not taken, m/s. (default: 2)", valueName: "m/s"))
    var minCourseSpeed: Double = 2

    @Option(help: ArgumentHelp("Where the swing is, LAT,LON: the World Magnetic Model's variation there when the reference gives none.", valueName: "lat,lon"))
    var position: String?

    @Option(help: ArgumentHelp("Listen this long to live sources, seconds. (default: until the replays end, or Ctrl-C)", valueName: "seconds"))
    var seconds: Double?

    func validate() throws {
        guard ReplaySpeedSetting(argument: speed) != nil else { throw ValidationError("--speed must be a multiple from 0.001 to 1000000 or max, not \(speed).") }
        if let position, CalibrateCommand.coordinates(position) == nil {
            throw ValidationError("--position must be LAT,LON in degrees, such as 50.78,-1.30, not \(position).")
        }
        if let seconds { guard seconds.isFinite, seconds > 0, seconds <= 604_800 else { throw ValidationError("--seconds must be above 0 and at most 604800.") } }
        guard minCourseSpeed.isFinite, (0...1000).contains(minCourseSpeed) else { throw ValidationError("--min-course-speed must be from 0 to 1000 m/s.") }
    }

    /// What the two sources gave, shared with their publishers' sinks.
    final class Collector: Sendable {
        struct State {
            var fitter = DeviationFitter()
            var noMagnetic = 0
            var noTrue = 0
            var noVariation = 0
            var courseRefused = 0
            var faults: [String] = []
        }

        let state = Mutex(State())
        let fixedPosition: GeographicPosition?
        let takesCourse: Bool

        init(position: GeographicPosition?, takesCourse: Bool) {
            fixedPosition = position
            self.takesCourse = takesCourse
        }

        func compass(_ event: HeadingEvent) {
            switch event {
            case .heading(let heading):
                let time = heading.timestamp.timeIntervalSince1970
                state.withLock { state in
                    if let magnetic = heading.magneticHeading { state.fitter.addCompass(magnetic, at: time) } else { state.noMagnetic += 1 }
                }
            case .fault(let fault): note(fault)
            default: break
            }
        }

        func reference(_ event: HeadingEvent) {
            switch event {
            case .heading(let heading):
                let time = heading.timestamp.timeIntervalSince1970
                if heading.kind == .courseOverGround, !takesCourse {
                    state.withLock { $0.courseRefused += 1 }
                    return
                }
                guard let truth = heading.trueHeading else {
                    state.withLock { $0.noTrue += 1 }
                    return
                }
                let variation = heading.variation(orModelAt: fixedPosition)
                state.withLock { state in
                    if let variation { state.fitter.addReference(truth - variation, at: time) } else { state.noVariation += 1 }
                }
            case .fault(let fault): note(fault)
            default: break
            }
        }

        private func note(_ fault: HeadingFault) {
            state.withLock { state in if state.faults.count < 20 { state.faults.append("\(fault.source): \(fault.code): \(fault.reason)") } }
        }
    }

    func run() async throws {
        var settings = DaemonSettings()
        settings.replaySpeed = ReplaySpeedSetting(argument: speed) ?? settings.replaySpeed
        settings.minimumCourseSpeed = minCourseSpeed
        var specifications: [SourceSpecification] = []
        for (option, text) in [("--source", source), ("--reference", reference)] {
            switch SourceSpecification.parse(text) {
            case .success(let specification): specifications.append(specification)
            case .failure(let error): fail("\(option) \(text): \(error.reason)", status: 64)
            }
        }
        let logger = Logger(label: "headingd.deviation")
        var feeds: [NMEAStreamEndpoint: NMEAFeed] = [:]
        let sources = specifications.map { $0.makeSource(settings: settings, feeds: &feeds, logger: logger) }
        let collector = Collector(
            position: position.flatMap(CalibrateCommand.coordinates).flatMap { GeographicPosition(latitude: $0.latitude, longitude: $0.longitude) },
            takesCourse: referenceCog
        )
        let proxies = sources.map { HeadingProxy(source: $0, delivery: .immediate, logger: logger) }
        let subscriptions = [
            proxies[0].publisher.sink { collector.compass($0) },
            proxies[1].publisher.sink { collector.reference($0) },
        ]
        let endings = sources.compactMap(ReplayWatcher.ending(of:))
        // With --json, standard output is the card alone: what is said while it learns goes to standard error.
        (json ? LineWriter.standardError : LineWriter.standardOutput).write("Learning the deviation of \(source) against \(reference)" + (endings.count == 2 ? " (replays, \(speed == "max" ? "flat out" : "×\(speed)"))." : ": turn the boat through full circles, slowly, both ways; Ctrl-C ends it."))
        for proxy in proxies { proxy.enable() }
        await Self.wait(for: endings, allFinite: endings.count == sources.count, seconds: seconds)
        for proxy in proxies { proxy.disable() }
        // Held to here, not `_ = subscriptions`: an optimised build may end a value's life at its last
        // use, and a cancelled subscription at the start heard nothing (the release binary said "0 compass
        // and 0 reference headings"). Cancelling them here is that use.
        for subscription in subscriptions { subscription.cancel() }
        var state = collector.state.withLock { $0 }
        let taken = "\(state.fitter.compassCount) compass and \(state.fitter.referenceCount) reference headings"
        let fit: DeviationFitter.Fit
        do {
            fit = try state.fitter.fit()
        } catch {
            fail("\(error) (\(taken)\(Self.describe(state)))", status: 65)
        }
        let curve = fit.curve
        if json {
            let card = curve.card().map { #"{"heading": \#(Int($0.heading)), "deviation": \#(Self.number($0.deviation))}"# }
            say("""
                {"coefficients": {"A": \(Self.number(curve.a)), "B": \(Self.number(curve.b)), "C": \(Self.number(curve.c)), \
                "D": \(Self.number(curve.d)), "E": \(Self.number(curve.e))}, "card": [\(card.joined(separator: ", "))], \
                "parameter": "\(curve.parameter())", "residual": \(Self.number(fit.residual)), "coverage": \(Self.number(fit.coverage)), \
                "pairs": \(fit.pairs), "outliers": \(fit.outliers)}
                """)
            return
        }
        say("From \(taken): \(fit.pairs) pairs (\(fit.outliers) outliers rejected\(Self.describe(state))).")
        say(String(format: "Coefficients: A %+.2f°  B %+.2f°  C %+.2f°  D %+.2f°  E %+.2f°", curve.a, curve.b, curve.c, curve.d, curve.e))
        say(String(format: "Residual %.2f° RMS; %.0f %% of the circle covered.", fit.residual, fit.coverage * 100))
        say("Compass  Deviation")
        for entry in curve.card() { say(String(format: "  %03d°    %+5.1f°", Int(entry.heading), entry.deviation)) }
        say("Apply it with the compass's source parameter (magnetic = compass + deviation):")
        say("  " + curve.parameter())
    }

    /// Waits for the replays to end (all of them, when every source is one), `seconds`, or SIGINT/SIGTERM.
    private static func wait(for endings: [@Sendable () async -> Bool], allFinite: Bool, seconds: Double?) async {
        Interruption.watch()
        await withTaskGroup(of: Void.self) { group in
            if allFinite {
                group.addTask { for ending in endings { _ = await ending() } }
            }
            if let seconds { group.addTask { try? await Task.sleep(for: .seconds(seconds)) } }
            group.addTask {
                while !Interruption.hasCome, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(100)) }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private static func describe(_ state: Collector.State) -> String {
        var parts: [String] = []
        if state.fitter.counts.unpaired > 0 { parts.append("\(state.fitter.counts.unpaired) compass headings with no reference within 0.5 s") }
        if state.fitter.counts.turning > 0 { parts.append("\(state.fitter.counts.turning) taken while turning faster than 3°/s") }
        if state.noMagnetic > 0 { parts.append("\(state.noMagnetic) compass headings without a magnetic heading") }
        if state.noTrue > 0 { parts.append("\(state.noTrue) reference headings without a true heading") }
        if state.noVariation > 0 { parts.append("\(state.noVariation) reference headings without a variation (give --position)") }
        if state.courseRefused > 0 { parts.append("\(state.courseRefused) courses over ground not taken (--reference-cog takes them)") }
        if let fault = state.faults.first { parts.append("first fault: \(fault)") }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: "; ")
    }

    private static func number(_ value: Double) -> String { String(format: "%.3f", value) }

    private func say(_ line: String) { LineWriter.standardOutput.write(line) }

    private func fail(_ message: String, status: Int32) -> Never {
        LineWriter.standardError.write("headingd deviation: \(message)")
        Foundation.exit(status)
    }
}
