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

/// `headingd calibrate SOURCE`: reads an IIO magnetometer (and the accelerometer beside it) while
/// a person turns it, fits its hard and soft iron (``MagnetometerCalibrator``), shows the progress
/// live, and writes the calibration where the source will read it once it is good enough. Ctrl-C
/// (or `--timeout`) ends it with what was still missing; a fit refused for 10 s (not the Earth's
/// field) ends it with the reason. Exit status: 0 written, 1 not enough or
/// refused, 64 a bad argument, 73 the file cannot be written, 69 no magnetometer.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Calibrates an IIO magnetometer: turn it while headingd fits its hard and soft iron.",
        discussion: """
            Turn the sensor (or the boat it is on) while this runs. --mode sphere (the default) is for a sensor \
            that can be turned every way: point it in every direction, upside down too, until 70 % of the sphere \
            is covered. --mode circle is for a boat that cannot tumble: turn a full circle or more, slowly, level \
            or heeled (heeled both ways also gives the vertical hard iron). Progress shows the coverage, the \
            samples and the current fit. It ends when the coverage and the fit suffice: an RMS residual worth at \
            most 2 degrees of heading (samples far off the fit, a glitch or a jolt, are set aside and said, up to 5 % \
            of them), and with --position a field strength within 25 % either way and an inclination \
            within 10 degrees of \
            the World Magnetic Model's there (a fit outside those for 10 s is refused: a magnetic disturbance \
            nearby). Ctrl-C or --timeout ends it with what was still missing; nothing is written then. The \
            calibration goes to --output, by default the state directory's file for the device \
            ($STATE_DIRECTORY or \(StateDirectory.packageDefault), calibration-NAME.json), where the source \
            reads it when it starts; a running headingd reads it again on SIGHUP (systemctl reload headingd); \
            it is checked writable before the turning starts (exit 73 with the reason). A read of the device \
            that has not answered for 5 s (an I2C bus held) ends it with status 69, naming the file. \
            Stop headingd first if it reads the same device at a different rate.
            """
    )

    @Argument(help: ArgumentHelp("The magnetometer, as an IIO source URL: iio: or iio://DEVICE?accel=...&rate=...&root=...", valueName: "source"))
    var source: String

    @Option(help: ArgumentHelp("Where to write the calibration. (default: the state directory's calibration-NAME.json)", valueName: "path"))
    var output: String?

    @Option(help: ArgumentHelp("Where the calibration is made, LAT,LON in degrees: the field is checked against the World Magnetic Model's there.", valueName: "lat,lon"))
    var position: String?

    @Option(help: ArgumentHelp("sphere (turned every way) or circle (a boat turned through a full circle).", valueName: "mode"))
    var mode: String = "sphere"

    @Option(help: ArgumentHelp("Give up after this many seconds.", valueName: "seconds"))
    var timeout: Double = 900

    func validate() throws {
        guard MagnetometerCalibrator.Shape(rawValue: mode) != nil else { throw ValidationError("--mode must be sphere or circle, not \(mode).") }
        guard timeout.isFinite, timeout > 0, timeout <= 86_400 else { throw ValidationError("--timeout must be between 0 and 86400 seconds.") }
        if let position, Self.coordinates(position) == nil {
            throw ValidationError("--position must be LAT,LON in degrees (latitude -90 to 90, longitude -180 to 180), such as 50.78,-1.30, not \(position).")
        }
    }

    static func coordinates(_ text: String) -> (latitude: Double, longitude: Double)? {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1], latitude.isFinite, longitude.isFinite,
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return nil }
        return (latitude, longitude)
    }

    func run() throws {
        let endpoint: IIOEndpoint
        do {
            endpoint = try IIOEndpoint(parsing: source)
        } catch {
            fail("\(source) is not an IIO source (\(error)); calibrate reads a magnetometer through IIO. Other compasses calibrate in their own device.", status: 64)
        }
        let watch = IIOReadWatch()
        let instruments: IIOInstruments
        do throws(IIOFailure) {
            instruments = try IIOInstruments(endpoint: endpoint, gyroscope: false, watch: watch)
        } catch {
            fail(error.reason + (error.code == .permissionDenied && geteuid() != 0 ? " (run as root, or as a user the device's udev rule lets read it)" : ""), status: 69)
        }
        let (magnetometer, accelerometer) = (instruments.magnetometer, instruments.accelerometer)
        let device = magnetometer.device
        let path = output ?? IIOHeadingSource.calibrationFile(for: device, in: StateDirectory.process.calibrations)
        // Before the turning, not after it: a file that cannot be written is said now.
        if let problem = Self.unwritable(path) {
            fail("cannot write \(path) (\(problem))" + (geteuid() == 0 ? "; give --output" : ": run as root or as the headingd user (sudo -u headingd headingd calibrate …), or give --output"), status: 73)
        }
        // As the source does: ST's drivers sleep two sample periods a direct read, 2 s an axis at their 1 Hz.
        for sensor in instruments.devices {
            if case .refused(let chosen, let reason) = IIOSamplingFrequency.adjust(sensor, for: endpoint.rate) {
                say("\(sensor): cannot set sampling_frequency to \(chosen) Hz (\(reason)); each read may take long (README, IIO: a udev rule).")
            }
        }
        let reference = position.flatMap(Self.coordinates).map {
            MagnetometerCalibrator.Reference(WorldMagneticModel.wmm2025.field(latitude: $0.latitude, longitude: $0.longitude, at: Date()))
        }
        let shape = MagnetometerCalibrator.Shape(rawValue: mode) ?? .sphere
        var calibrator = MagnetometerCalibrator(shape: shape, reference: reference, device: device.label ?? device.name ?? device.id)
        let interactive = isatty(STDOUT_FILENO) == 1
        say("Calibrating \(device)" + (accelerometer.map { " with \($0.device)" } ?? " (no accelerometer: taken as level)") + " at \(endpoint.rate) samples a second.")
        say(shape == .sphere
            ? "Turn it slowly in every direction, upside down too, until the sphere is covered. Ctrl-C stops."
            : "Turn the boat slowly through a full circle or more. Ctrl-C stops.")
        if let reference {
            say(String(format: "The World Magnetic Model here: field %.1f µT, horizontal %.1f µT, inclination %.1f°.", reference.totalIntensity, reference.horizontalIntensity, reference.inclination))
        } else {
            say("No --position: the field is checked only against the Earth's range (20–70 µT).")
        }
        Interruption.watch()  // SIGINT and SIGTERM end the collection (saying what was missing), not the process
        let start = ContinuousClock.now
        Self.guardStalls(watch, rate: endpoint.rate, ending: start + .seconds(timeout))
        var lastShown = start - .seconds(10)
        var lastFit = start - .seconds(10)
        var fit: MagnetometerCalibration?
        var verdict = MagnetometerCalibrator.Verdict.notEnough(["no samples yet"])
        var unreadable = 0
        var refusals = 0
        let period = Duration.seconds(1 / endpoint.rate)
        var next = start
        while !Interruption.hasCome, ContinuousClock.now - start < .seconds(timeout) {
            do throws(IIOFailure) {
                let field = try magnetometer.read() * 100
                let acceleration = try accelerometer?.read()
                calibrator.add(field: field, acceleration: acceleration)
            } catch where error.code == .malformedInput {
                unreadable += 1
            } catch {
                if interactive { print("") }
                fail(error.reason, status: 69)
            }
            let now = ContinuousClock.now
            if now - lastFit >= .milliseconds(500) {
                lastFit = now
                fit = calibrator.fit()
                verdict = calibrator.assess(fit)
                if verdict.isGood { break }
                // Enough coverage and a good fit, but not the Earth's field, for 10 s: more turning will not help.
                if case .refused = verdict { refusals += 1 } else { refusals = 0 }
                if refusals >= 20 { break }
            }
            if now - lastShown >= (interactive ? .milliseconds(250) : .seconds(2)) {
                lastShown = now
                let line = progress(fit, samples: calibrator.sampleCount, reference: reference, shape: shape, elapsed: now - start)
                if interactive {
                    FileHandle.standardOutput.write(Data(("\r\u{1B}[K" + line).utf8))
                } else {
                    say(line)
                }
            }
            next = next + period
            let wait = next - ContinuousClock.now
            if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18) } else { next = ContinuousClock.now }
        }
        if interactive { print("") }
        if unreadable > 0 { say("\(unreadable) samples could not be read (not a number) and were skipped.") }
        guard verdict.isGood, let fit else {
            // One more look with everything gathered.
            let last = calibrator.fit()
            let reasons = calibrator.assess(last).reasons
            let why = Interruption.hasCome ? "stopped" : refusals >= 20 ? "refused for 10 s" : "gave up after \(Int(timeout)) s"
            if case .refused = calibrator.assess(last) {
                fail("\(why): the fit is refused, because " + reasons.joined(separator: "; ") + ". Nothing written.", status: 1)
            }
            fail("\(why): not enough, because " + (reasons.isEmpty ? ["no fit yet"] : reasons).joined(separator: "; ") + ". Nothing written.", status: 1)
        }
        say(summary(fit, reference: reference))
        if fit.samples < calibrator.sampleCount {
            let setAside = calibrator.sampleCount - fit.samples
            let was = setAside == 1 ? "was" : "were"
            say("\(setAside) of \(calibrator.sampleCount) samples \(was) far off the fit (a glitch, a jolt, a fast turn) and \(was) set aside.")
        }
        do {
            try fit.encoded().write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            let problem = Self.unwritable(path) ?? "\(error)"
            fail("cannot write \(path) (\(problem))" + (geteuid() == 0 ? "; give --output" : ": run as root or as the headingd user (sudo -u headingd headingd calibrate …), or give --output"), status: 73)
        }
        say("Written to \(path). The source reads it when it starts; a running headingd reads it again on SIGHUP (systemctl reload headingd).")
    }

    private func progress(
        _ fit: MagnetometerCalibration?, samples: Int, reference: MagnetometerCalibrator.Reference?, shape: MagnetometerCalibrator.Shape, elapsed: Duration
    ) -> String {
        var parts = ["\(elapsed.components.seconds) s", "\(samples) samples"]
        guard let fit else { return (parts + ["no fit yet"]).joined(separator: " · ") }
        if fit.samples < samples { parts.append("\(samples - fit.samples) set aside") }
        parts.append(
            shape == .sphere ? "\(Int((fit.coverage * 100).rounded())) % of the sphere" : "\(Int((fit.coverage * 36).rounded()))/36 of the circle")
        parts.append(String(format: "%@ fit %.2f µT RMS ≈ %.1f°", fit.mode.rawValue, fit.residual, fit.headingError))
        let expected = fit.mode == .circle ? reference?.horizontalIntensity : reference?.totalIntensity
        parts.append(String(format: "field %.1f µT", fit.fieldStrength) + (expected.map { String(format: " (model %.1f)", $0) } ?? ""))
        if let inclination = fit.inclination {
            parts.append(String(format: "inclination %.1f°", inclination) + (reference.map { String(format: " (model %.1f)", $0.inclination) } ?? ""))
        }
        return parts.joined(separator: " · ")
    }

    private func summary(_ fit: MagnetometerCalibration, reference: MagnetometerCalibrator.Reference?) -> String {
        let offset = fit.offset
        let rows = [fit.softIron.rows.0, fit.softIron.rows.1, fit.softIron.rows.2].map { String(format: "[%.3f %.3f %.3f]", $0.x, $0.y, $0.z) }
        var lines = [
            "Calibrated (\(fit.mode.rawValue), \(fit.samples) samples, \(Int((fit.coverage * 100).rounded())) % covered):",
            String(format: "  hard iron   %.2f, %.2f, %.2f µT", offset.x, offset.y, offset.z),
            "  soft iron   " + rows.joined(separator: " "),
            String(format: "  residual    %.2f µT RMS, about %.1f° of heading", fit.residual, fit.headingError),
            String(format: "  field       %.1f µT", fit.fieldStrength)
                + (reference.map { String(format: " (model %.1f µT)", fit.mode == .circle ? $0.horizontalIntensity : $0.totalIntensity) } ?? ""),
        ]
        if let inclination = fit.inclination {
            lines.append(String(format: "  inclination %.1f°", inclination) + (reference.map { String(format: " (model %.1f°)", $0.inclination) } ?? ""))
        }
        return lines.joined(separator: "\n")
    }

    private func say(_ line: String) { LineWriter.standardOutput.write(line) }

    private func fail(_ message: String, status: Int32) -> Never {
        LineWriter.standardError.write("headingd calibrate: \(message)")
        Foundation.exit(status)
    }

    /// Why `path` cannot be written, with its directory made when missing; `nil` when it can. A
    /// file of the same name is made beside it and removed (O_EXCL: nothing of the user's is touched).
    static func unwritable(_ path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        var made = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            made += "/" + component
            if mkdir(made, 0o755) != 0 {
                guard errno == EEXIST else { return "cannot make \(made): \(String(cString: strerror(errno)))" }
                var existing = stat()
                guard stat(made, &existing) == 0, (existing.st_mode & S_IFMT) == S_IFDIR else { return "\(made) is not a directory" }
            }
        }
        var status = stat()
        if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR { return "it is a directory" }
        let probe = (directory.isEmpty ? "." : directory) + "/.headingd-calibrate-\(getpid())"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        close(descriptor)
        unlink(probe)
        return nil
    }

    /// A read that never returns (an I²C transfer the bus holds) cannot be interrupted: a thread
    /// ends the command when one has taken more than 5 s (three sample periods at a slower rate),
    /// or more than 1 s once Ctrl-C, SIGTERM or the timeout should have ended it, naming the file.
    private static func guardStalls(_ watch: IIOReadWatch, rate: Double, ending: ContinuousClock.Instant) {
        let limit = IIOReadWatch.stallLimit(rate: rate)
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: 0.25)
                let over = Interruption.hasCome || ContinuousClock.now >= ending
                guard let stall = watch.stalled(longerThan: over ? .seconds(1) : limit) else { continue }
                LineWriter.standardError.write(
                    "headingd calibrate: \(LogText.printable(stall.path)) has not answered for \(Int(stall.for / .seconds(1))) s "
                        + "(an I²C bus held, a driver waiting). Nothing written.")
                Foundation.exit(69)
            }
        }
        thread.start()
    }
}
