// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD
import HeadingPorts
import Logging
import NMEA2000

#if canImport(Glibc)
import Glibc
#endif

/// Listens to one candidate, read-only, through the sources' own openers and decoders, and says
/// what it heard: a serial line at each rate until something with a right checksum arrives (NMEA
/// 0183 or an Actisense NGT-1), then for the time given; a TCP or UDP feed, a CAN interface, a
/// gpsd (its `DEVICES`, `ATT` and `TPV` reports and raw sentences), the IIO devices (a few reads
/// and the calibration file). Nothing is written to any device or bus.
struct ScanListener: Sendable {
    /// How long each candidate is listened to once open.
    let seconds: Double
    /// How long a serial line is listened to at each rate before the next.
    var probeSlot: Duration = .milliseconds(1500)
    /// Ends the listening early.
    let signal: StopSignal
    /// Where the calibration files are (``StateDirectory/calibrations``).
    var stateDirectory = StateDirectory.process

    /// The longest a candidate can take: a serial line tried at every rate, then listened to.
    var longest: Double { Double(NMEAStreamEndpoint.baudRates.count) * probeSlot.seconds + seconds }

    /// Listens to a candidate.
    /// - Parameters:
    ///   - candidate: What to listen to.
    ///   - watch: Told which IIO attribute is being read, so that one that never answers can be named.
    ///   - progress: Told what is being tried (a serial line's rate), for the countdown.
    func listen(to candidate: ScanCandidate, watch: IIOReadWatch? = nil, progress: @escaping @Sendable (String) -> Void = { _ in }) -> ScanFinding {
        switch candidate {
        case .stream(let endpoint): listen(to: endpoint, candidate: candidate.description, progress: progress)
        case .gpsd(let endpoint): listen(to: endpoint, candidate: candidate.description, progress: progress)
        case .iio(let endpoint): listen(to: endpoint, candidate: candidate.description, watch: watch)
        }
    }

    // MARK: Feeds

    private func listen(to given: NMEAStreamEndpoint, candidate: String, progress: @Sendable (String) -> Void) -> ScanFinding {
        let started = ContinuousClock.now
        var finding = ScanFinding(candidate: candidate, outcome: .silent, seconds: 0)
        var endpoint = given
        let stream: any ByteStream
        do throws(PortFailure) {
            if case .serial(let path, .automatic) = given.transport {
                let line = try SerialLineStream(path: path, baud: NMEAStreamEndpoint.baudRates[0])
                let found: (rate: Int, recognised: SerialBaudProbe.Recognised)?
                do throws(PortFailure) {
                    found = try SerialBaudProbe.probe(line, slot: probeSlot, accepting: [.nmea0183, .actisense], signal: signal) { rate in
                        progress("\(rate) baud")
                    }
                } catch {
                    line.close()
                    throw error
                }
                guard let found else {
                    line.close()
                    finding.seconds = (ContinuousClock.now - started).seconds
                    finding.problem = "nothing with a right checksum at any of \(NMEAStreamEndpoint.baudRates.map(String.init).joined(separator: ", ")) baud"
                    return finding
                }
                endpoint = NMEAStreamEndpoint(
                    transport: .serial(path: path, baud: .fixed(found.rate)), noDataTimeout: nil,
                    framing: found.recognised == .actisense ? .actisense : .nmea)
                finding.baud = found.rate
                stream = line
            } else {
                stream = try given.transport.open(connectTimeout: .seconds(3), signal: signal, logger: Logger(label: "headingd.scan"))
                if case .serial(_, .fixed(let rate)) = given.transport { finding.baud = rate }
            }
        } catch {
            finding.outcome = error.code == .permissionDenied ? .permissionDenied : .unavailable
            finding.problem = error.reason
            finding.fix = Self.fix(for: given, error: error)
            finding.seconds = (ContinuousClock.now - started).seconds
            return finding
        }
        defer { stream.close() }
        progress("listening")
        var survey = FeedSurvey()
        let isDatagram = if case .udp = endpoint.transport { true } else { false }
        var splitters = SenderSplitters(endpoint.framing, maximumLineLength: HeadingLineDecoder.maximumLineLength, isDatagram: isDatagram)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        reading: while !signal.isStopped {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            switch stream.read(into: buffer, waitingAtMost: min(left, .milliseconds(250)).pollMilliseconds, wakingOn: signal.wakeDescriptor) {
            case .bytes(let count, let sender):
                let bytes = UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
                splitters.append(bytes, from: sender) { survey.take($0) }
            case .timedOut:
                continue
            case .ended(let failure):
                finding.problem = failure.reason
                break reading
            }
        }
        finding.seconds = (ContinuousClock.now - started).seconds
        // Lines of a gateway's CAN text make it a YD RAW (or candump) feed.
        if endpoint.framing == .nmea, survey.textFrames > survey.checksummed, survey.textFormat == .yachtDevicesRaw {
            endpoint.framing = .ydraw
        }
        finding.format = switch endpoint.framing {
        case .nmea: survey.textFrames > survey.checksummed ? "candump" : "nmea0183"
        case .ubx: "ubx"
        case .actisense: "actisense"
        case .ydraw: "ydraw"
        case .socketCAN: "socketcan"
        }
        finding.outcome = survey.heardAnything ? .heard : .silent
        if finding.outcome == .silent, finding.problem == nil {
            finding.problem = signal.isStopped
                ? "nothing heard before the scan was stopped, \(Self.format((finding.seconds * 10).rounded() / 10)) s in"
                : "nothing heard in \(Self.format(seconds)) s"
        }
        ScanVerdicts.describe(survey, into: &finding)
        finding.sources = ScanVerdicts.sources(base: endpoint, survey: survey, seconds: max(seconds, 0.001))
        return finding
    }

    /// The fix for a feed that could not be opened, where there is one.
    static func fix(for endpoint: NMEAStreamEndpoint, error: PortFailure) -> String? {
        if case .udp = endpoint.transport, error.errorNumber == EADDRINUSE {
            return "another program listens there (a running headingd? sudo systemctl stop headingd first), or give the address it is sent to"
        }
        guard error.code == .permissionDenied else { return nil }
        switch endpoint.transport {
        case .serial(let path, _):
            var information = stat()
            let group = stat(path, &information) == 0 ? getgrgid(information.st_gid).map { String(cString: $0.pointee.gr_name) } : nil
            let dropIn = endpoint.framing == .actisense ? "nmea2000-ngt1.conf" : "serial-input.conf"
            return "\(path) belongs to the group \(group ?? "dialout"): add yourself to it (sudo usermod -aG \(group ?? "dialout") $USER, then log in again), "
                + "or run this as root; the service needs the drop-in /usr/share/headingd/drop-ins/\(dropIn) (it names the device and the group)"
        case .socketCAN:
            return "the service needs the drop-in /usr/share/headingd/drop-ins/nmea2000-socketcan.conf (AF_CAN)"
        default:
            return nil
        }
    }

    // MARK: gpsd

    private func listen(to endpoint: GPSDEndpoint, candidate: String, progress: @Sendable (String) -> Void) -> ScanFinding {
        let started = ContinuousClock.now
        var finding = ScanFinding(candidate: candidate, outcome: .silent, format: "gpsd", seconds: 0)
        let connection: GPSDConnection
        do throws(GPSDConnection.Failure) {
            connection = try GPSDConnection(endpoint: endpoint, connectTimeout: .seconds(2), signal: signal)
        } catch {
            finding.outcome = error.isAccessDenied ? .permissionDenied : .unavailable
            finding.problem = error.reason
            finding.seconds = (ContinuousClock.now - started).seconds
            return finding
        }
        progress("watching")
        var survey = FeedSurvey()
        var devices: [String: ScanFinding.GPSDDevice] = [:]
        var order: [String] = []
        var reports = 0
        func device(_ given: String?) -> String? {
            guard let given, !given.isEmpty else { return nil }
            let path = ScanReport.printable(String(given.prefix(256)))
            if devices[path] == nil, devices.count < 32 {
                devices[path] = ScanFinding.GPSDDevice(path: path, headings: 0, courses: 0)
                order.append(path)
            }
            return devices[path] == nil ? nil : path
        }
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        reading: while !signal.isStopped {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            do throws(GPSDConnection.Failure) {
                try connection.readMessages(waitingAtMost: Int32(min(left, .milliseconds(250)).pollMilliseconds) * 1000) { message in
                    guard case .line(let line) = message, let first = line.first else { return }
                    if first == UInt8(ascii: "$") || first == UInt8(ascii: "!") {
                        survey.take(line: line)
                        return
                    }
                    reports += 1
                    if GPSDReportDecoder.reportClass(of: line) == "DEVICES" {
                        let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
                        for entry in (object?["devices"] as? [[String: Any]]) ?? [] {
                            if let path = device(entry["path"] as? String) { devices[path]?.driver = (entry["driver"] as? String).map { ScanReport.printable(String($0.prefix(64))) } }
                        }
                        return
                    }
                    switch try? GPSDReportDecoder.decode(line) {
                    case .attitude(let reading?, _, let path):
                        if let path = device(path) {
                            devices[path]?.headings += 1
                            // gpsd's ATT does not say what measured it (its decoder calls it a compass): a
                            // true heading is taken for a GNSS compass's until its raw sentences say more.
                            devices[path]?.kind = reading.magneticHeading == nil ? .gnssCompass : .fluxgate
                        }
                    case .position(let course, _, _, _, _, let path, let relative):
                        if let path = device(path) {
                            if course != nil { devices[path]?.courses += 1 }
                            if relative != nil {
                                devices[path]?.headings += 1
                                devices[path]?.kind = .gnssCompass
                            }
                        }
                    case .device(let path, _):
                        _ = device(path)
                    default:
                        break
                    }
                }
            } catch {
                finding.problem = error.reason
                break reading
            }
        }
        finding.seconds = (ContinuousClock.now - started).seconds
        // gpsd's raw sentences tell the instrument when they carry one kind of heading only.
        let measured = Set(survey.headings.keys.map { ScanSource.Kind($0.kind) }.filter { $0 != .courseOverGround })
        if measured.count == 1, let kind = measured.first {
            for path in order where devices[path]?.kind != nil { devices[path]?.kind = kind }
        }
        finding.gpsdDevices = order.compactMap { devices[$0] }
        finding.outcome = reports > 0 || survey.heardAnything ? .heard : .silent
        ScanVerdicts.describe(survey, into: &finding)
        finding.sources = ScanVerdicts.sources(gpsd: endpoint, devices: finding.gpsdDevices, seconds: max(seconds, 0.001))
        return finding
    }

    // MARK: IIO

    private func listen(to endpoint: IIOEndpoint, candidate: String, watch: IIOReadWatch?) -> ScanFinding {
        let started = ContinuousClock.now
        var finding = ScanFinding(candidate: candidate, outcome: .silent, format: "iio", seconds: 0)
        defer { finding.seconds = (ContinuousClock.now - started).seconds }
        do throws(IIOFailure) {
            // The accelerometer and gyroscope are opened too: one that cannot be is said here.
            let instruments = try IIOInstruments(endpoint: endpoint, watch: watch)
            let choice = instruments.choice
            let field = try instruments.magnetometer.read()
            let file = endpoint.calibration ?? IIOHeadingSource.calibrationFile(for: choice.magnetometer, in: stateDirectory.calibrations)
            let status = CalibrationStatus.loading(file, required: endpoint.calibration != nil)
            var calibration = status.reason
            if let fit = status.calibration {
                calibration = "\(fit.mode.rawValue), " + String(format: "%.2f µT RMS, about %.1f° of heading, made ", fit.residual, fit.headingError)
                    + ISO8601DateFormatter().string(from: fit.date)
            }
            finding.iio = ScanFinding.IIO(
                magnetometer: choice.magnetometer.description, accelerometer: choice.accelerometer?.description,
                gyroscope: choice.gyroscope?.description, fieldMicrotesla: field.isFinite ? field.length * 100 : nil,
                calibrationFile: file, calibrated: status.state == .calibrated, calibration: calibration)
            finding.outcome = .heard
            finding.sources = ScanVerdicts.sources(iio: endpoint, heard: finding.iio!, devices: choice)
        } catch {
            finding.outcome = error.code == .permissionDenied ? .permissionDenied : .unavailable
            finding.problem = error.reason
            if error.code == .permissionDenied {
                finding.fix = "run this as root, or give this user read access to the device's sysfs files (a udev rule); the service reads them as it is"
            }
        }
        return finding
    }

    /// Seconds for people: `5`, `2.5`.
    static func format(_ seconds: Double) -> String {
        String(format: seconds == seconds.rounded() ? "%.0f" : "%.1f", seconds)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
