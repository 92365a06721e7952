// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Headings from the e-compass or IMU on the board itself (an LSM9DS1 HAT, an MPU-9250, an
/// HMC5883L, a LIS3MDL, a BMM150 …), read through Linux's Industrial I/O subsystem in direct mode:
/// the `*_raw` files held open and read with `pread` at ``IIOEndpoint/rate``.
///
/// ```swift
/// let compass = IIOHeadingSource(configuration: .init(endpoint: try IIOEndpoint(parsing: "iio:")))
/// ```
///
/// The magnetometer's field (gauss in the IIO ABI, converted at 1 G = 100 µT, the unit of
/// ``MagnetometerCalibration``), in the device frame (the
/// kernel's mount matrix applied), is corrected by its calibration (``MagnetometerCalibration``,
/// from the endpoint's `calibration=` file or ``Configuration/calibrationDirectory``, read each
/// time the devices are opened), turned by ``IIOEndpoint/orientation``, and tilt-compensated by the
/// accelerometer beside it (``TiltCompensation``); with a gyroscope beside it too, a complementary
/// filter (``GyroHeadingFilter``, 2 s) lets the gyro carry the heading through a seaway's jolts.
/// The heading is magnetic (kind ``Heading/Kind/compass``), made true by the variation downstream
/// as every magnetic source's is, with pitch and roll; without an accelerometer the sensor is
/// taken to be level. Each heading's ``Heading/headingAccuracy`` states the calibration: twice its
/// fit's estimated error, or 30° without one (``CalibrationStatus/headingAccuracy``), and
/// ``calibrationStatus`` tells the rest.
///
/// Faults: no magnetometer, or one that cannot be opened, is ``HeadingFault/Code/sourceUnavailable``
/// (tried again with backoff); a device that stops answering (unbound, unplugged) is
/// ``HeadingFault/Code/deviceLost``, and it is looked for again (1 s doubling to 30 s until the
/// devices answer; a reason that repeats said once, then once a minute with its count); an
/// attribute that is no regular file (a FIFO, a directory) is ``HeadingFault/Code/deviceLost``
/// naming it, never waited on; a read that has not returned for 5 s (an I²C transfer the bus holds)
/// is ``HeadingFault/Code/deviceLost`` naming the file, raised by a watchdog thread — the read
/// cannot be interrupted; the headings resume when it returns, and ``stop()`` does not wait for it;
/// a file this user may not read is
/// ``HeadingFault/Code/permissionDenied`` then ``HeadingAuthorizationStatus/denied``, tried again;
/// a value that is not a number is ``HeadingFault/Code/malformedInput``, and an accelerometer in
/// free fall or a field along gravity ``HeadingFault/Code/outOfRange`` (no heading for that
/// sample), both as a flood is (the first, then a summary every 10 s). A magnetometer without a
/// calibration (no file, or one that cannot be applied: the reason says which) raises one
/// ``HeadingFault/Code/uncalibrated`` fault per start.
public final class IIOHeadingSource: HeadingSource, CalibrationReporting {
    /// What to read, and how.
    public struct Configuration: Sendable, Hashable {
        /// The devices and the rate.
        public var endpoint: IIOEndpoint
        /// The name headings and faults carry; `nil` for the endpoint's URL.
        public var sourceName: String?
        /// Where the devices found, their sampling frequencies and the calibration in force are logged. Default: nowhere.
        public var logger: Logger
        /// Where the magnetometer's calibration file is looked for when the endpoint names none:
        /// `DIR/calibration-NAME.json`, NAME the device's label, else its name. headingd
        /// gives its state directory. `nil`: nowhere.
        public var calibrationDirectory: String?

        /// Creates a configuration.
        /// - Parameters:
        ///   - endpoint: The devices and the rate.
        ///   - sourceName: The name headings and faults carry, or `nil` for the endpoint's URL.
        ///   - logger: Where the devices found, their sampling frequencies and the calibration are logged. Default: nowhere.
        ///   - calibrationDirectory: Where the calibration file is looked for when the endpoint names none.
        public init(
            endpoint: IIOEndpoint = IIOEndpoint(), sourceName: String? = nil,
            logger: Logger = Logger(label: "HeadingKit.IIO", factory: { _ in SwiftLogNoOpLogHandler() }),
            calibrationDirectory: String? = nil
        ) {
            self.endpoint = endpoint
            self.sourceName = sourceName
            self.logger = logger
            self.calibrationDirectory = calibrationDirectory
        }

        /// Whether two configurations read the same devices under the same name (the logger aside).
        public static func == (lhs: Configuration, rhs: Configuration) -> Bool {
            lhs.endpoint == rhs.endpoint && lhs.sourceName == rhs.sourceName && lhs.calibrationDirectory == rhs.calibrationDirectory
        }

        /// Hashes the endpoint and the name: what equality compares.
        /// - Parameter hasher: The hasher.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(endpoint)
            hasher.combine(sourceName)
            hasher.combine(calibrationDirectory)
        }
    }

    private struct State {
        var signal: StopSignal?
        var authorization = HeadingAuthorizationStatus.notDetermined
        var calibration: CalibrationStatus?
    }

    /// What this source reads.
    public let configuration: Configuration
    /// The name headings and faults carry.
    public let name: String
    private let state = HeadingSourceState(State())

    /// `true`: a device this user may not read is tried again, and reported authorized once it opens.
    public var keepsTryingAfterDenial: Bool { true }

    /// Creates a source; nothing is read until ``start()``.
    /// - Parameter configuration: What to read, and how.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        name = configuration.sourceName ?? configuration.endpoint.description
    }

    deinit {
        state.withLock { $0.signal?.stop() }
    }

    /// Receives the source's reports, on its reader thread. Held weakly.
    public var delegate: (any HeadingSourceDelegate)? {
        get { state.delegate }
        set { state.delegate = newValue }
    }

    /// A magnetometer whose files this user may not read is ``HeadingAuthorizationStatus/denied``
    /// (after a ``HeadingFault/Code/permissionDenied`` fault naming the file), a readable one
    /// ``HeadingAuthorizationStatus/authorized``; with no magnetometer yet, the answer waits for
    /// the reader, after ``start()``.
    public func requestAuthorization() {
        state.answerAuthorization(
            \.authorization,
            reading: (try? IIODeviceChoice(endpoint: configuration.endpoint)).map { "\($0.magnetometer.directory)/in_magn_x_raw" },
            from: self
        )
    }

    /// Starts the reader thread. Does nothing while started.
    public func start() {
        let signal: StopSignal? = state.withLock { state in
            guard state.signal == nil else { return nil }
            state.signal = StopSignal()
            return state.signal
        }
        guard let signal else { return }
        let watch = IIOReadWatch()
        let reader = IIOReader(configuration: configuration, name: name, signal: signal, watch: watch) { [weak self] in self }
        let thread = Thread {
            setThreadName("iio")
            reader.run()
        }
        thread.start()
        let watchdog = Thread {
            setThreadName("iio watchdog")
            reader.watchForStalls()
        }
        watchdog.start()
    }

    /// Stops the reader: it ends within one sample. No report follows once the one in flight is delivered.
    public func stop() {
        state.withLock { state in
            state.signal?.stop()
            state.signal = nil
        }
    }

    /// The magnetometer's calibration: read each time the devices are opened (at ``start()``, and
    /// after a device comes back), `nil` before that.
    public var calibrationStatus: CalibrationStatus? { state.withLock { $0.calibration } }

    fileprivate func setCalibrationStatus(_ status: CalibrationStatus) { state.withLock { $0.calibration = status } }

    /// The calibration file of a magnetometer in a directory: `DIR/calibration-NAME.json`, NAME its
    /// label, else its name, else `iio:deviceN`, with anything but letters, digits, `-`, `_` and `.` as `_`.
    /// - Parameters:
    ///   - device: The magnetometer.
    ///   - directory: The directory.
    package static func calibrationFile(for device: IIODevice, in directory: String) -> String {
        let key = device.label ?? device.name ?? device.id
        let safe = String(key.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "_" })
        return (directory.hasSuffix("/") ? directory : directory + "/") + "calibration-\(safe.hasPrefix(".") ? "_" + safe.dropFirst() : safe).json"
    }

    /// Hands one report from the reader to the delegate; an authorization change only when it is one.
    fileprivate func report(_ report: HeadingSourceReport) {
        if case .authorizationChanged(let status) = report {
            let changed = state.withLock { state in
                defer { state.authorization = status }
                return state.authorization != status
            }
            guard changed else { return }
        }
        state.report(report, from: self)
    }
}

/// The reader thread's work: find, open, read at the rate, deliver; look again when a device goes.
private struct IIOReader: Sendable {
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
            do throws(IIOChannels.Failure) {
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
            adjustSamplingFrequencies(instruments.devices, rate: endpoint.rate)
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
            var next = origin
            while !signal.isStopped {
                let now = ContinuousClock.now
                for summary in floods.tick(at: now).summaries { deliver(.fault(summary)) }
                do throws(IIOChannels.Failure) {
                    // The IIO ABI gives the field in gauss: 100 µT each, the unit of calibrations.
                    let raw = try magnetometer.read() * 100
                    let deviceAcceleration = try accelerometer?.read()
                    let deviceRotation = try gyroscope?.read()
                    if !answered {
                        answered = true
                        backoff.reset()
                        retries.reset()
                    }
                    for output in fusion.take(raw: raw, acceleration: deviceAcceleration, rotation: deviceRotation, at: (now - origin) / .seconds(1)) {
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
                            configuration.logger.notice(
                                "\(name): \(magnetometer.device): the magnetic field is back within bounds after \(String(format: "%.1f", seconds)) s: the magnetometer is trusted again")
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
                } catch where error.code == .malformedInput {
                    deliver(floods.admit(HeadingFault(code: .malformedInput, source: name, reason: error.reason), at: now).map { .fault($0) })
                } catch {
                    for summary in floods.flush(at: now) { deliver(.fault(summary)) }
                    let delay = backoff.nextDelay(using: &generator)
                    if let reason = retries.admit(error.reason, at: .now) {
                        deliver(.fault(HeadingFault(code: error.code, source: name, reason: reason + "; looking for it again in \(String(format: "%.2f", delay)) s")))
                    }
                    signal.wait(seconds: delay)
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
    private func adjustSamplingFrequencies(_ devices: [IIODevice], rate: Double) {
        let logger = configuration.logger
        for device in devices {
            switch IIOSamplingFrequency.adjust(device, for: rate) {
            case .notAdjustable, .unchanged: break
            case .set(let from, let to):
                logger.notice("\(name): \(device): sampling_frequency \(from.map { "\($0) Hz → " } ?? "")\(to) Hz, for reads at \(rate) a second")
            case .refused(let chosen, let reason):
                let text = "\(name): \(device): cannot set sampling_frequency to \(chosen) Hz (\(reason)); at its own, each read may take long "
                    + "(ST's drivers sleep two sample periods a read): set it at boot (a udev rule; README, IIO)"
                logger.notice("\(text)")
            }
        }
    }
}
