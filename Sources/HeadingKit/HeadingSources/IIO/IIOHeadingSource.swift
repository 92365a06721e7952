// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts
public import Logging

/// Headings from the e-compass or IMU on the board itself (an LSM9DS1 HAT, an MPU-9250, an
/// HMC5883L, a LIS3MDL, a BMM150 …), read through Linux's Industrial I/O subsystem: as whole scans
/// from the kernel's buffer (`/dev/iio:deviceN`) where a device's driver has one and a trigger (its
/// axes sampled together, timed by the kernel's timestamps; a heading at each of the
/// magnetometer's scans, the gyroscope's at 100 Hz at least, its turn averaged between two
/// headings), else in direct mode, the `*_raw` files held open and read with `pread` at
/// ``IIOEndpoint/rate`` (``IIOEndpoint/usesBuffer`` `false`: always). A device is read directly,
/// said in the log with the reason, when it has no buffer or no trigger, when this process may not
/// write its buffer's attributes or read its character device, or when its buffer gives no scan
/// within 2 s of being enabled; a buffer whose scans stop for 5 s is a
/// ``HeadingFault/Code/deviceLost``.
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

    func setCalibrationStatus(_ status: CalibrationStatus) { state.withLock { $0.calibration = status } }

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
    func report(_ report: HeadingSourceReport) {
        if case .authorizationChanged(let status) = report {
            let changed = state.withLock { state in
                defer { state.authorization = status }
                return state.authorization != status
            }
            guard changed else { return }
        }
        state.report(report, from: self)
    }

    /// Hands the end of a condition the reader reported as a fault to the delegate.
    func recovered(_ reason: String) {
        state.report(recovery: HeadingNotice(code: .recovered, source: name, reason: reason), from: self)
    }
}
