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
/// The magnetometer's field, in the device frame (the kernel's mount matrix applied, then
/// ``IIOEndpoint/orientation``), is tilt-compensated by the accelerometer beside it
/// (``TiltCompensation``): the heading is magnetic (kind ``Heading/Kind/compass``), made true by
/// the variation downstream as every magnetic source's is, with pitch and roll. Without an
/// accelerometer the sensor is taken to be level.
///
/// Faults: no magnetometer, or one that cannot be opened, is ``HeadingFault/Code/sourceUnavailable``
/// (tried again with backoff); a device that stops answering (unbound, unplugged) is
/// ``HeadingFault/Code/deviceLost``, and it is looked for again; a file this user may not read is
/// ``HeadingFault/Code/permissionDenied`` then ``HeadingAuthorizationStatus/denied``, tried again;
/// a value that is not a number is ``HeadingFault/Code/malformedInput``, and an accelerometer in
/// free fall or a field along gravity ``HeadingFault/Code/outOfRange`` (no heading for that
/// sample), both as a flood is (the first, then a summary every 10 s). Until calibration is built (issue 37), every
/// magnetometer raises one ``HeadingFault/Code/uncalibrated`` fault per start: its headings are
/// as wrong as the iron around it makes them.
public final class IIOHeadingSource: HeadingSource {
    /// What to read, and how.
    public struct Configuration: Sendable, Hashable {
        /// The devices and the rate.
        public var endpoint: IIOEndpoint
        /// The name headings and faults carry; `nil` for the endpoint's URL.
        public var sourceName: String?
        /// Where the devices found and their sampling frequencies are logged. Default: nowhere.
        public var logger: Logger

        /// Creates a configuration.
        /// - Parameters:
        ///   - endpoint: The devices and the rate.
        ///   - sourceName: The name headings and faults carry, or `nil` for the endpoint's URL.
        ///   - logger: Where the devices found and their sampling frequencies are logged. Default: nowhere.
        public init(
            endpoint: IIOEndpoint = IIOEndpoint(), sourceName: String? = nil,
            logger: Logger = Logger(label: "HeadingKit.IIO", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.endpoint = endpoint
            self.sourceName = sourceName
            self.logger = logger
        }

        /// Whether two configurations read the same devices under the same name (the logger aside).
        public static func == (lhs: Configuration, rhs: Configuration) -> Bool {
            lhs.endpoint == rhs.endpoint && lhs.sourceName == rhs.sourceName
        }

        /// Hashes the endpoint and the name: what equality compares.
        /// - Parameter hasher: The hasher.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(endpoint)
            hasher.combine(sourceName)
        }
    }

    private struct State {
        var signal: StopSignal?
        var authorization = HeadingAuthorizationStatus.notDetermined
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
        let reader = IIOReader(configuration: configuration, name: name, signal: signal) { [weak self] in self }
        let thread = Thread {
            setThreadName("iio")
            reader.run()
        }
        thread.start()
    }

    /// Stops the reader: it ends within one sample. No report follows once the one in flight is delivered.
    public func stop() {
        state.withLock { state in
            state.signal?.stop()
            state.signal = nil
        }
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

/// The devices an endpoint names, found under its root.
package struct IIODeviceChoice: Sendable {
    /// The magnetometer.
    package let magnetometer: IIODevice
    /// The accelerometer beside it, if any.
    package let accelerometer: IIODevice?
    /// The gyroscope beside it, if any.
    package let gyroscope: IIODevice?

    /// Finds the devices.
    /// - Parameter endpoint: What to look for, and where.
    /// - Throws: ``IIOChannels/Failure`` (`sourceUnavailable`) saying what is missing.
    package init(endpoint: IIOEndpoint) throws(IIOChannels.Failure) {
        let devices = IIODevice.all(under: endpoint.root)
        func named(_ specification: String, _ type: IIODevice.ChannelType, _ what: String) throws(IIOChannels.Failure) -> IIODevice {
            guard let device = devices.first(where: { $0.isNamed(specification) }) else {
                let seen = devices.isEmpty ? "none" : devices.map(\.description).joined(separator: ", ")
                throw IIOChannels.Failure(code: .sourceUnavailable, reason: "no IIO device '\(specification)' under \(endpoint.root) (devices: \(seen))")
            }
            guard device.types.contains(type) else {
                throw IIOChannels.Failure(code: .sourceUnavailable, reason: "\(device) under \(endpoint.root) is no \(what) (no in_\(type.rawValue)_x_raw, _y_, _z_)")
            }
            return device
        }
        let magnetometer: IIODevice
        if let specification = endpoint.magnetometer {
            magnetometer = try named(specification, .magnetometer, "magnetometer")
        } else if let first = devices.first(where: { $0.types.contains(.magnetometer) }) {
            magnetometer = first
        } else {
            let seen = devices.isEmpty ? "no IIO devices" : "devices: " + devices.map(\.description).joined(separator: ", ")
            throw IIOChannels.Failure(code: .sourceUnavailable, reason: "no magnetometer under \(endpoint.root) (\(seen))")
        }
        /// The device of a type beside the magnetometer: itself, one with the same parent, or the only one.
        func beside(_ type: IIODevice.ChannelType) -> IIODevice? {
            if magnetometer.types.contains(type) { return magnetometer }
            let candidates = devices.filter { $0.types.contains(type) }
            return candidates.first { $0.parent != nil && $0.parent == magnetometer.parent } ?? (candidates.count == 1 ? candidates[0] : nil)
        }
        self.magnetometer = magnetometer
        switch endpoint.accelerometer {
        case "none": accelerometer = nil
        case let specification?: accelerometer = try named(specification, .accelerometer, "accelerometer")
        case nil: accelerometer = beside(.accelerometer)
        }
        switch endpoint.gyroscope {
        case "none": gyroscope = nil
        case let specification?: gyroscope = try named(specification, .gyroscope, "gyroscope")
        case nil: gyroscope = beside(.gyroscope)
        }
    }
}

/// The reader thread's work: find, open, read at the rate, deliver; look again when a device goes.
private struct IIOReader: Sendable {
    let configuration: IIOHeadingSource.Configuration
    let name: String
    let signal: StopSignal
    let source: @Sendable () -> IIOHeadingSource?

    func run() {
        var backoff = ReconnectBackoff()
        var generator = SystemRandomNumberGenerator()
        var floods = FaultFloodGate()
        var uncalibratedReported = false
        let endpoint = configuration.endpoint
        let period = 1 / endpoint.rate
        while !signal.isStopped {
            let magnetometer: IIOChannels
            let accelerometer: IIOChannels?
            do throws(IIOChannels.Failure) {
                let choice = try IIODeviceChoice(endpoint: endpoint)
                magnetometer = try IIOChannels(device: choice.magnetometer, type: .magnetometer)
                accelerometer = try choice.accelerometer.map { device throws(IIOChannels.Failure) in try IIOChannels(device: device, type: .accelerometer) }
            } catch {
                let delay = backoff.nextDelay(using: &generator)
                deliver(.fault(HeadingFault(code: error.code, source: name, reason: error.reason + "; retrying in \(String(format: "%.2f", delay)) s")))
                if error.code == .permissionDenied { deliver(.authorizationChanged(.denied)) }
                signal.wait(seconds: delay)
                continue
            }
            backoff.reset()
            deliver(.authorizationChanged(.authorized))
            adjustSamplingFrequencies([magnetometer.device] + (accelerometer.map { [$0.device] } ?? []), rate: endpoint.rate)
            if !uncalibratedReported {
                uncalibratedReported = true
                deliver(.fault(HeadingFault(
                    code: .uncalibrated, source: name,
                    reason: "\(magnetometer.device) has no calibration: its headings are uncorrected for the iron around it (commonly 5–30° off)"
                        + (accelerometer == nil ? "; no accelerometer beside it, so it is taken to be level" : "; tilt-compensated by \(accelerometer!.device)")
                )))
            }
            var next = ContinuousClock.now
            while !signal.isStopped {
                let now = ContinuousClock.now
                for summary in floods.tick(at: now).summaries { deliver(.fault(summary)) }
                do throws(IIOChannels.Failure) {
                    let field = endpoint.orientation * (try magnetometer.read())
                    let acceleration = try accelerometer.map { channels throws(IIOChannels.Failure) in endpoint.orientation * (try channels.read()) }
                    do throws(TiltCompensation.Failure) {
                        let attitude = try TiltCompensation.attitude(field: field, acceleration: acceleration ?? Vector3(x: 0, y: 0, z: 9.80665))
                        let heading = Heading(
                            trueHeading: nil, magneticHeading: attitude.heading, timestamp: Date(), source: name, kind: .compass,
                            pitch: acceleration == nil ? nil : attitude.pitch, roll: acceleration == nil ? nil : attitude.roll
                        )
                        deliver(.heading(heading))
                    } catch {
                        deliver(floods.admit(HeadingFault(code: .outOfRange, source: name, reason: error.description), at: now).map { .fault($0) })
                    }
                } catch where error.code == .malformedInput {
                    deliver(floods.admit(HeadingFault(code: .malformedInput, source: name, reason: error.reason), at: now).map { .fault($0) })
                } catch {
                    for summary in floods.flush(at: now) { deliver(.fault(summary)) }
                    let delay = backoff.nextDelay(using: &generator)
                    deliver(.fault(HeadingFault(code: error.code, source: name, reason: error.reason + "; looking for it again in \(String(format: "%.2f", delay)) s")))
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
