// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts
import Logging

extension IIOReader {
    /// The buffers of one opening: one a device, each read for the instruments on it.
    struct Buffers {
        /// The magnetometer's device's: its scans pace the headings.
        let magnetometer: IIOBuffer
        /// The other devices' (the accelerometer's, the gyroscope's), when they are not the magnetometer's.
        let others: [IIOBuffer]

        var all: [IIOBuffer] { [magnetometer] + others }
    }

    /// How reading the buffers ended.
    enum BufferedEnd {
        /// The source stopped.
        case stopped
        /// A device stopped answering: looked for again.
        case lost(IIOFailure)
        /// The magnetometer's buffer gave no scan in time (a trigger that never fires): direct reads instead.
        case noScans(String)
    }

    /// The gyroscope's scans a second at least in buffered mode: the fusion integrates its turn
    /// between two headings, every scan of it.
    static let gyroscopeRate = 100.0

    /// How long after enabling the magnetometer's buffer its first scan may take before it is read
    /// directly instead, and then how long without a scan before it is lost: 10 of its periods, at
    /// least 2 s and 5 s.
    static func scanDeadlines(rate: Double) -> (first: Double, later: Double) {
        (max(2, 10 / rate), max(5, 10 / rate))
    }

    /// Enables the buffer of each device that can give whole scans, with its sampling frequency
    /// for scans at the source's rate (the gyroscope's at ``gyroscopeRate`` at least: set by
    /// ``IIOBuffer`` once the device is found able, before its buffer is enabled); a device that
    /// cannot is read directly, said with the reason, and with its frequency for direct reads.
    /// - Returns: The buffers, or `nil` when the magnetometer's device is read directly (then every one is).
    func openBuffers(_ instruments: IIOInstruments) -> Buffers? {
        let endpoint = configuration.endpoint
        let logger = configuration.logger
        guard endpoint.usesBuffer, endpoint.root == IIOEndpoint.systemRoot else {
            adjustSamplingFrequencies(instruments.devices, rate: endpoint.rate)
            return nil
        }
        // The instruments by device: an IMU may carry two or three of them.
        var byDevice: [(device: IIODevice, types: [IIODevice.ChannelType], rate: Double)] = []
        for channels in [instruments.magnetometer, instruments.accelerometer, instruments.gyroscope].compactMap({ $0 }) {
            let rate = channels.type == .gyroscope ? max(Self.gyroscopeRate, endpoint.rate) : endpoint.rate
            if let index = byDevice.firstIndex(where: { $0.device.directory == channels.device.directory }) {
                byDevice[index].types.append(channels.type)
                byDevice[index].rate = max(byDevice[index].rate, rate)
            } else {
                byDevice.append((channels.device, [channels.type], rate))
            }
        }
        var opened: [IIOBuffer] = []
        for (index, entry) in byDevice.enumerated() {
            // The magnetometer's device first: without its buffer, every device is read directly.
            guard index == 0 || !opened.isEmpty else {
                adjustSamplingFrequencies([entry.device], rate: endpoint.rate)
                continue
            }
            do throws(IIOFailure) {
                let buffer = try IIOBuffer(device: entry.device, types: entry.types, rate: entry.rate, trigger: endpoint.trigger)
                report(buffer.frequency, of: entry.device, rate: entry.rate, forScans: true)
                opened.append(buffer)
                let trigger = buffer.trigger.map { ", trigger \($0) given" } ?? ""
                logger.notice(
                    "\(name): \(entry.device): whole scans from its buffer (\(entry.types.map(\.rawValue).joined(separator: ", ")), \(buffer.layout.scanSize) bytes a scan\(trigger))"
                )
            } catch {
                logger.notice("\(name): \(entry.device): read directly: \(error.reason)")
                adjustSamplingFrequencies([entry.device], rate: endpoint.rate)
            }
        }
        // The magnetometer's device is the first: the others are opened only when it was.
        guard let magnetometer = opened.first else { return nil }
        return Buffers(magnetometer: magnetometer, others: Array(opened.dropFirst()))
    }

    /// Reads the buffers until the source stops or a device is lost, woken by the magnetometer's
    /// scans: a heading at each of them, with the accelerometer's newest scan and the gyroscope's turn averaged
    /// over its scans since the last heading (a device without a buffer read directly then), timed
    /// by the kernel's timestamps where the scans carry them.
    func readBuffered(
        _ buffers: Buffers, instruments: IIOInstruments, origin: ContinuousClock.Instant,
        tick: (ContinuousClock.Instant) -> Void,
        take: (Vector3, Vector3?, Vector3?, Double, ContinuousClock.Instant) -> Void,
        malformed: (IIOFailure, ContinuousClock.Instant) -> Void
    ) -> BufferedEnd {
        let deadlines = Self.scanDeadlines(rate: configuration.endpoint.rate)
        var lastScan: ContinuousClock.Instant?
        let enabled = ContinuousClock.now
        var acceleration: Vector3?
        var turn = (sum: Vector3(x: 0, y: 0, z: 0), count: 0)
        var lastRotation: Vector3?
        var clock = ScanClock()
        // Woken by the magnetometer's scans alone (one wake-up a heading): the others' wait in the
        // kernel's buffers and are read with them.
        let descriptors = [buffers.magnetometer.descriptor]
        let buffered = Set(buffers.all.flatMap(\.types))
        let direct = [instruments.accelerometer, instruments.gyroscope].compactMap { $0 }.filter { !buffered.contains($0.type) }
        // The others first, so that a heading has the gyroscope's scans up to its own.
        let readOrder = buffers.others + [buffers.magnetometer]
        while !signal.isStopped {
            // At most 0.25 s a wait: a stop is seen within it.
            CharacterDevice.waitReadable(descriptors, milliseconds: 250)
            let now = ContinuousClock.now
            tick(now)
            var magnetometerScans: [IIOBuffer.Scan] = []
            for buffer in readOrder {
                let failure = buffer.read { scan in
                    if let value = scan.accelerometer, let channels = instruments.accelerometer { acceleration = channels.value(raw: value) }
                    if let value = scan.gyroscope, let channels = instruments.gyroscope {
                        turn.sum = turn.sum + channels.value(raw: value)
                        turn.count += 1
                    }
                    if scan.magnetometer != nil { magnetometerScans.append(scan) }
                }
                if let failure { return .lost(IIOFailure(code: .deviceLost, reason: "\(failure)")) }
            }
            guard !magnetometerScans.isEmpty else {
                if let lastScan {
                    if now - lastScan > .seconds(deadlines.later) {
                        return .lost(IIOFailure(
                            code: .deviceLost, reason: "\(buffers.magnetometer.device) has given no scan for \(Int(deadlines.later)) s (its trigger stopped?)"))
                    }
                } else if now - enabled > .seconds(deadlines.first) {
                    return .noScans("its buffer gave no scan within \(Int(deadlines.first)) s of being enabled (a trigger that does not fire)")
                }
                continue
            }
            lastScan = now
            // A device without a buffer is read once for the scans of this wait.
            var directAcceleration: Vector3?
            var directRotation: Vector3?
            do throws(IIOFailure) {
                for channels in direct {
                    if channels.type == .accelerometer { directAcceleration = try channels.read() } else { directRotation = try channels.read() }
                }
            } catch where error.code == .malformedInput {
                malformed(error, now)
            } catch {
                return .lost(error)
            }
            if turn.count > 0 {
                lastRotation = turn.sum * (1 / Double(turn.count))
                turn = (Vector3(x: 0, y: 0, z: 0), 0)
            }
            let rotation = instruments.gyroscope == nil ? nil : directRotation ?? lastRotation
            for scan in magnetometerScans {
                guard let raw = scan.magnetometer else { continue }
                // The IIO ABI gives the field in gauss: 100 µT each, the unit of calibrations.
                let field = instruments.magnetometer.value(raw: raw) * 100
                let time = clock.seconds(for: scan.timestamp, now: (now - origin) / .seconds(1))
                take(field, directAcceleration ?? acceleration, rotation, time, now)
            }
        }
        return .stopped
    }
}

/// The time of each scan for the fusion: the kernel's timestamps as they run, from the clock's
/// time at the first; the clock's own where a scan has none, or where they jump back or by more
/// than 5 s (a clock stepped, a hostile device), from which they are followed again. Never back.
struct ScanClock {
    private var base: (timestamp: Int64, seconds: Double)?
    private var last: Int64?
    private var latest = -Double.infinity

    mutating func seconds(for timestamp: Int64?, now: Double) -> Double {
        var seconds = now
        if let timestamp {
            // In Double: a hostile device's timestamps must not overflow a subtraction.
            if let base, let last, timestamp >= last, Double(timestamp) - Double(last) <= 5e9 {
                seconds = base.seconds + (Double(timestamp) - Double(base.timestamp)) / 1e9
            } else {
                base = (timestamp, max(now, latest))
                seconds = max(now, latest)
            }
            last = timestamp
        }
        latest = max(latest, seconds)
        return latest
    }
}
