// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import HeadingKit
import HeadingPorts
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `headingd scan`: listens to what the machine has (or to the candidates given), says what each
/// carries, and which heading sources those are, with the exact `--source` URL; `--write-config`
/// writes them, ranked, as a configuration file.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Finds the heading sources on board and writes the configuration.",
        discussion: """
            With no candidate, listens to what this machine has: serial ports (/dev/serial/by-id/* first, \
            then ttyUSB, ttyACM, ttyAMA and ttyS with a driver and a port), CAN interfaces, UDP ports \
            10110, 2000 and 1457, gpsd at 127.0.0.1:2947 and the IIO magnetometers. Candidates are source \
            URLs as --source takes them (serial://..., tcp://..., udp://..., socketcan://..., gpsd://..., \
            iio:...?root=...). All are listened to at once, read-only: nothing is written to a device or a \
            bus. A serial line without baud= is tried at 4800, 38400, 9600, 19200, 57600 and 115200 baud, \
            1.5 s each, until NMEA 0183 sentences or Actisense NGT-1 messages with right checksums arrive, \
            then listened to for --seconds; YD RAW text on a TCP or UDP feed is recognised as NMEA 2000. \
            Each candidate is reported with what was heard (talkers and sentences with counts; NMEA 2000 \
            devices with their PGNs, and their NAME and model when a claim or 126996 passes in the time; a \
            magnetometer with the accelerometer and gyroscope beside it and its calibration file) and the \
            heading sources found there, each with its kind (gyro, dual-antenna GNSS, fluxgate, IMU, course \
            over ground only) and the exact --source URL, split by talker= or device= where one feed carries \
            several. A port this user may not open is reported with the fix. Ctrl-C or SIGTERM ends the \
            listening and the report says what was heard; a candidate whose read never returns (an IIO \
            attribute whose I2C transfer the bus holds) is reported unanswered 10 s past the longest \
            listening, or 2 s after the signal. Progress goes to standard \
            error. Exit status: 0 when a heading source was found, 1 when none was, 64 for a bad argument, \
            73 when --write-config cannot write its file.
            """
    )

    @Argument(help: ArgumentHelp("Source URLs to listen to, instead of what the machine has.", valueName: "candidate"))
    var candidates: [String] = []

    @Option(help: ArgumentHelp("How long each candidate is listened to once open, in seconds.", valueName: "seconds"))
    var seconds: Double = 5

    @Flag(help: "Print the report as JSON (for programs; its keys are stable).")
    var json = false

    @Option(help: ArgumentHelp("Write the heading sources found, best first, as a configuration file headingd reads.", valueName: "path"))
    var writeConfig: String?

    func validate() throws {
        guard seconds.isFinite, seconds >= 0.5, seconds <= 600 else { throw ValidationError("--seconds must be from 0.5 to 600.") }
        for candidate in candidates {
            do throws(ScanCandidateError) { _ = try ScanCandidate(parsing: candidate) } catch { throw ValidationError(error.reason) }
        }
    }

    /// Set by SIGINT or SIGTERM: the scan stops listening and reports what it heard.
    private static let interrupted = StopSignal(wakesPoll: true)

    func run() throws {
        let list = try candidates.isEmpty ? ScanCandidate.discover() : candidates.map { text in
            do throws(ScanCandidateError) { return try ScanCandidate(parsing: text) } catch { throw ValidationError(error.reason) }
        }
        let signal = Self.interrupted
        Self.stopOnInterrupt()
        let listener = ScanListener(seconds: seconds, signal: signal)
        let interactive = isatty(STDERR_FILENO) == 1
        let progress = ScanProgress(total: list.count, interactive: interactive)
        let probes = list.contains { if case .stream(let endpoint) = $0, case .serial(_, .automatic) = endpoint.transport { true } else { false } }
        let longest = probes ? listener.longest : seconds + 3  // 3 s: a TCP connection's wait
        progress.say("Listening to \(list.count) candidate\(list.count == 1 ? "" : "s") for \(ScanListener.format(seconds)) s each"
            + (probes ? " (a serial line first at each rate, 1.5 s each, until sentences arrive: up to \(ScanListener.format(longest)) s in all)" : "")
            + "; Ctrl-C stops and reports what was heard.")
        let results = Mutex<[Int: ScanFinding]>([:])
        let watches = list.map { _ in IIOReadWatch() }
        let group = DispatchGroup()
        for (index, candidate) in list.enumerated() {
            group.enter()
            let thread = Thread {
                let finding = listener.listen(to: candidate, watch: watches[index]) { step in progress.step(candidate.description, step) }
                results.withLock { $0[index] = finding }
                progress.done(finding)
                group.leave()
            }
            thread.name = "scan \(index)"
            thread.start()
        }
        let started = ContinuousClock.now
        // A read that never returns (an IIO attribute whose I²C transfer the bus holds) cannot be
        // interrupted: past the longest a candidate can take, or 2 s after Ctrl-C or SIGTERM, the
        // report is made without it, and says so.
        let deadline = started + .seconds(longest + Self.grace)
        var interruptedAt: ContinuousClock.Instant?
        while group.wait(timeout: .now() + .seconds(1)) == .timedOut {
            let now = ContinuousClock.now
            progress.tick(elapsed: (now - started).seconds, longest: longest)
            if signal.isStopped, interruptedAt == nil { interruptedAt = now }
            if now >= deadline || interruptedAt.map({ now - $0 >= .seconds(2) }) == true { break }
        }
        progress.finish()
        let findings = results.withLock { all in
            (0..<list.count).map { index in
                all[index] ?? Self.unanswered(list[index], watch: watches[index], seconds: (ContinuousClock.now - started).seconds)
            }
        }
        let report = ScanReport(date: Date(), seconds: seconds, candidates: findings)
        LineWriter.standardOutput.write(json ? report.json : report.text)
        if let writeConfig {
            guard !report.sources.isEmpty else {
                LineWriter.standardError.write("headingd scan: no heading source found: nothing written to \(writeConfig)")
                throw ExitCode(1)
            }
            do {
                try Data(report.configuration.utf8).write(to: URL(fileURLWithPath: writeConfig), options: .atomic)
            } catch {
                LineWriter.standardError.write("headingd scan: cannot write \(writeConfig): \((error as NSError).localizedDescription)")
                throw ExitCode(73)
            }
            LineWriter.standardError.write("headingd scan: wrote \(report.sources.count) source\(report.sources.count == 1 ? "" : "s") to \(writeConfig); check it with headingd --check-config \(writeConfig)")
        }
        if report.sources.isEmpty { throw ExitCode(1) }
    }

    /// How long past the longest listening a candidate may take before the report is made without it.
    static let grace = 10.0

    /// The finding of a candidate whose listening never ended: a read that did not return.
    static func unanswered(_ candidate: ScanCandidate, watch: IIOReadWatch, seconds: Double) -> ScanFinding {
        var finding = ScanFinding(candidate: candidate.description, outcome: .unavailable, seconds: seconds)
        let file = watch.stalled(longerThan: .zero).map { " (\(LogText.printable($0.path)) has not answered for \(Int($0.for / .seconds(1))) s)" } ?? ""
        finding.problem = "it did not answer: a read that never returned\(file); the report is made without it"
        return finding
    }

    /// SIGINT and SIGTERM end the listening, not the process: the report says what was heard. The
    /// handlers are in place when this returns (``SignalPipe``): a signal at once is not lost.
    private static func stopOnInterrupt() {
        signalSources.withLock { sources in
            guard sources.isEmpty, let readEnd = SignalPipe.install([SIGINT, SIGTERM]) else { return }
            let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
            source.setEventHandler {
                _ = SignalPipe.takeAny(from: readEnd)  // one signal or several: the scan ends
                interrupted.stop()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Kept so the signal pipe's source lives as long as the scan.
    private static let signalSources = Mutex<[any DispatchSourceRead]>([])
}
