// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts
import Logging

/// The reader thread's work: find, open, read at the rate, deliver; look again when a device goes.
struct IIOReader: Sendable {
    let configuration: IIOHeadingSource.Configuration
    let name: String
    let signal: StopSignal
    /// The read in flight, seen by the watchdog.
    let watch: IIOReadWatch
    let source: @Sendable () -> IIOHeadingSource?

    /// How long one read of an attribute may take before it is a fault (``IIOReadWatch/stallLimit(rate:)``).
    var stallLimit: Duration { IIOReadWatch.stallLimit(rate: configuration.endpoint.rate) }

    /// The watchdog thread's work: a read of an attribute that has not returned within
    /// ``stallLimit`` (an I²C transfer the bus holds, a driver that waits) is a `deviceLost` fault
    /// naming the file, said once a stall; the reader goes on by itself when the read returns. A read
    /// cannot be interrupted: the source still stops at once (its reader, when the read returns,
    /// sees the stop and ends).
    func watchForStalls() {
        var reported: String?
        while !signal.isStopped {
            signal.wait(seconds: 0.25)
            guard let stall = watch.stalled(longerThan: stallLimit) else {
                reported = nil
                continue
            }
            guard reported != stall.path else { continue }
            reported = stall.path
            deliver(.fault(HeadingFault(
                code: .deviceLost, source: name,
                reason: "\(LogText.printable(stall.path)) has not answered for \(Int(stall.for / .seconds(1))) s (an I²C bus held, a driver waiting): "
                    + "no heading until it does; its headings resume when it answers")))
        }
    }

    func run() {
        var backoff = ReconnectBackoff()
        var generator = SystemRandomNumberGenerator()
        var floods = FaultFloodGate()
        var retries = RepeatedReasonGate()
        var lastCalibrationReason: String?
        let endpoint = configuration.endpoint
        let period = 1 / endpoint.rate
        while !signal.isStopped {
            let instruments: IIOInstruments
            do throws(IIOFailure) {
                instruments = try IIOInstruments(endpoint: endpoint, watch: watch)
            } catch {
                let delay = backoff.nextDelay(using: &generator)
                if let reason = retries.admit(error.reason, at: .now) {
                    deliver(.fault(HeadingFault(code: error.code, source: name, reason: reason + "; retrying in \(String(format: "%.2f", delay)) s")))
                }
                if error.code == .permissionDenied { deliver(.authorizationChanged(.denied)) }
                signal.wait(seconds: delay)
                continue
            }
            let (magnetometer, accelerometer, gyroscope) = (instruments.magnetometer, instruments.accelerometer, instruments.gyroscope)
            // The backoff starts again only once the devices have answered: a file that opens but
            // cannot be read (empty, EIO from the chip) backs off as one that cannot be opened.
            var answered = false
            deliver(.authorizationChanged(.authorized))
            var buffers = openBuffers(instruments)
            var status = loadCalibration(for: magnetometer.device)
            let calibration = status.calibration
            let accuracy = status.headingAccuracy
            if endpoint.refinesCalibration, calibration != nil {
                status.refining = true
                source()?.setCalibrationStatus(status)
            }
            let tilt = accelerometer.map { "; tilt-compensated by \($0.device)" } ?? "; no accelerometer beside it, so it is taken to be level"
            let turns = gyroscope.map { "; turns followed by \($0.device)" } ?? ""
            if let calibration {
                lastCalibrationReason = nil
                let text = "\(name): \(magnetometer.device): calibration \(status.file ?? "") in force (\(calibration.mode.rawValue), "
                    + String(format: "%.2f µT RMS, about %.1f° of heading, %.0f %% covered, made ", calibration.residual, calibration.headingError, calibration.coverage * 100)
                    + ISO8601DateFormatter().string(from: calibration.date) + ")" + tilt + turns
                configuration.logger.notice("\(text)")
            } else if lastCalibrationReason != status.reason {
                // One fault per start, and again only when the reason changes (a file appears damaged, say).
                lastCalibrationReason = status.reason
                deliver(.fault(HeadingFault(
                    code: .uncalibrated, source: name,
                    reason: "\(magnetometer.device) has no calibration (\(status.reason ?? "none")): its headings are uncorrected for the iron around it "
                        + "(commonly 5–30° off; heading accuracy said as \(Int(accuracy))°)" + tilt + turns
                )))
            }
            var fusion = CompassFusion(
                calibration: calibration, refines: endpoint.refinesCalibration, orientation: endpoint.orientation, accuracy: accuracy)
            let origin = ContinuousClock.now
            /// One sample, whole: the fusion, and what it gives delivered.
            func take(raw: Vector3, deviceAcceleration: Vector3?, deviceRotation: Vector3?, at time: Double, now: ContinuousClock.Instant) {
                if !answered {
                    answered = true
                    backoff.reset()
                    retries.reset()
                }
                for output in fusion.take(raw: raw, acceleration: deviceAcceleration, rotation: deviceRotation, at: time) {
                    switch output {
                    case .heading(let magnetic, let pitch, let roll, let accuracy):
                        deliver(.heading(Heading(
                            trueHeading: nil, magneticHeading: magnetic, headingAccuracy: accuracy, timestamp: Date(), source: name, kind: .compass,
                            pitch: pitch, roll: roll
                        )))
                    case .refined(let refinement):
                        status.calibration = refinement.current
                        fusion.setAccuracy(status.headingAccuracy)
                        refined(refinement, status: status, device: magnetometer.device)
                    case .disturbanceBegan(let reason):
                        let meanwhile = gyroscope.map { "\($0.device) carries the heading meanwhile (for at most \(Int(CompassFusion.gyroAloneLimit)) s)" }
                            ?? "no gyroscope to carry the heading: the magnetometer's own meanwhile, its accuracy said as \(Int(CompassFusion.disturbedAccuracy))°"
                        deliver(.fault(HeadingFault(
                            code: .magneticDisturbance, source: name,
                            reason: "\(magnetometer.device): the field is not the Earth's alone (a magnet or a motor near the compass?): \(reason); "
                                + meanwhile + "; the calibration is not refined until it is back"
                        )))
                    case .disturbanceEnded(let seconds):
                        if !signal.isStopped {
                            source()?.recovered(
                                "\(magnetometer.device): the magnetic field is back within bounds after \(String(format: "%.1f", seconds)) s: the magnetometer is trusted again")
                        }
                    case .referenceTaken(let reason, let inDisturbance):
                        if inDisturbance {
                            deliver(.fault(HeadingFault(code: .magneticDisturbance, source: name, reason: "\(magnetometer.device): " + reason)))
                        } else {
                            configuration.logger.notice("\(name): \(magnetometer.device): \(reason)")
                        }
                    case .gyroAloneLimitReached:
                        deliver(.fault(HeadingFault(
                            code: .magneticDisturbance, source: name,
                            reason: "\(magnetometer.device): still disturbed after the gyroscope has carried the heading alone for "
                                + "\(Int(CompassFusion.gyroAloneLimit)) s, beyond which its drift is not known: no heading until the field is back "
                                + "(a magnet fixed to the boat for good is hard iron: calibrate again)"
                        )))
                    case .failure(let error):
                        deliver(floods.admit(HeadingFault(code: .outOfRange, source: name, reason: error.description), at: now).map { .fault($0) })
                    }
                }
            }
            /// A device that stopped answering: said (a reason that repeats, once a minute), and looked for again after the backoff.
            func lost(_ error: IIOFailure, at now: ContinuousClock.Instant) {
                for summary in floods.flush(at: now) { deliver(.fault(summary)) }
                let delay = backoff.nextDelay(using: &generator)
                if let reason = retries.admit(error.reason, at: .now) {
                    deliver(.fault(HeadingFault(code: error.code, source: name, reason: reason + "; looking for it again in \(String(format: "%.2f", delay)) s")))
                }
                signal.wait(seconds: delay)
            }
            func tick(at now: ContinuousClock.Instant) {
                for summary in floods.tick(at: now).summaries { deliver(.fault(summary)) }
            }
            func malformed(_ error: IIOFailure, at now: ContinuousClock.Instant) {
                deliver(floods.admit(HeadingFault(code: .malformedInput, source: name, reason: error.reason), at: now).map { .fault($0) })
            }
            // Whole scans from the kernel's buffer where the magnetometer can give them; else, or
            // when its scans never come, direct reads on the rate's grid.
            if buffers != nil {
                let end = readBuffered(buffers!, instruments: instruments, origin: origin, tick: tick, take: take, malformed: malformed)
                buffers = nil  // disabled, before a frequency is set for direct reads
                switch end {
                case .stopped: continue
                case .lost(let error):
                    lost(error, at: .now)
                    continue
                case .noScans(let reason):
                    configuration.logger.notice("\(name): \(magnetometer.device): \(reason): direct reads instead")
                    adjustSamplingFrequencies(instruments.devices, rate: endpoint.rate)
                }
            }
            var next = origin
            while !signal.isStopped {
                let now = ContinuousClock.now
                tick(at: now)
                do throws(IIOFailure) {
                    // The IIO ABI gives the field in gauss: 100 µT each, the unit of calibrations.
                    let raw = try magnetometer.read() * 100
                    let deviceAcceleration = try accelerometer?.read()
                    let deviceRotation = try gyroscope?.read()
                    take(raw: raw, deviceAcceleration: deviceAcceleration, deviceRotation: deviceRotation, at: (now - origin) / .seconds(1), now: now)
                } catch where error.code == .malformedInput {
                    malformed(error, at: now)
                } catch {
                    lost(error, at: now)
                    break
                }
                // The next sample on the rate's grid; a late one skips to the next slot rather than bursting.
                next = next + .seconds(period)
                let wait = next - ContinuousClock.now
                if wait <= .zero {
                    next = ContinuousClock.now
                    continue
                }
                signal.wait(seconds: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
            }
        }
    }

    /// Says what a refinement at sea changed, makes it the source's status, and keeps it in the
    /// state directory's file (never in a file the endpoint names: that one is the user's).
    private func refined(_ refinement: CalibrationRefiner.Refinement, status: CalibrationStatus, device: IIODevice) {
        let move = refinement.current.offset - refinement.previous.offset
        var text = "\(name): \(device): calibration refined at sea: hard iron moved by "
            + String(format: "%.2f, %.2f, %.2f µT; heading error on the last turns %.1f° → %.1f°", move.x, move.y, move.z, refinement.previousError, refinement.current.headingError)
        if configuration.endpoint.calibration == nil, let file = status.file {
            do {
                try refinement.current.encoded().write(to: URL(fileURLWithPath: file), options: .atomic)
                text += "; kept in \(file)"
            } catch {
                text += "; not kept (\(file): \(error.localizedDescription))"
            }
        }
        configuration.logger.notice("\(text)")
        source()?.setCalibrationStatus(status)
    }

    /// Reads the magnetometer's calibration (the endpoint's file, else the calibration directory's)
    /// and makes it the source's status.
    private func loadCalibration(for device: IIODevice) -> CalibrationStatus {
        let status: CalibrationStatus
        if let path = configuration.endpoint.calibration {
            status = CalibrationStatus.loading(path, required: true)
        } else if let directory = configuration.calibrationDirectory {
            status = CalibrationStatus.loading(IIOHeadingSource.calibrationFile(for: device, in: directory), required: false)
        } else {
            status = CalibrationStatus(state: .none, reason: "no calibration file named (calibration=) and no calibration directory (calibrationDirectory; headingd gives its state directory)")
        }
        source()?.setCalibrationStatus(status)
        return status
    }

    private func deliver(_ report: HeadingSourceReport?) {
        guard let report, !signal.isStopped else { return }
        source()?.report(report)
    }

    /// Sets each device's sampling frequency for direct reads at `rate`, and says what was done.
    func adjustSamplingFrequencies(_ devices: [IIODevice], rate: Double) {
        for device in devices { report(IIOSamplingFrequency.adjust(device, for: rate), of: device, rate: rate, forScans: false) }
    }

    /// Says what was done to a device's sampling frequency for reads (or scans) at `rate`.
    func report(_ outcome: IIOSamplingFrequency.Outcome, of device: IIODevice, rate: Double, forScans: Bool) {
        let logger = configuration.logger
        switch outcome {
        case .notAdjustable, .unchanged: break
        case .set(let from, let to):
            logger.notice("\(name): \(device): sampling_frequency \(from.map { "\($0) Hz → " } ?? "")\(to) Hz, for \(forScans ? "scans" : "reads") at \(rate) a second")
        case .refused(let chosen, let reason):
            let text = "\(name): \(device): cannot set sampling_frequency to \(chosen) Hz (\(reason)); at its own, each read may take long "
                + "(ST's drivers sleep two sample periods a read): set it at boot (a udev rule; README, IIO)"
            logger.notice("\(text)")
        }
    }
}
