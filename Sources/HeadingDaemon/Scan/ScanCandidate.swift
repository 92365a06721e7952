// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD
import HeadingPorts

/// One place `headingd scan` listens to: a feed (serial line, TCP, UDP, SocketCAN), a gpsd, or
/// the IIO devices. Written as the source URLs headingd takes.
enum ScanCandidate: Sendable, Hashable, CustomStringConvertible {
    /// A serial line, a TCP or UDP feed, a CAN interface. A serial line given without `baud=` is
    /// tried at every rate.
    case stream(NMEAStreamEndpoint)
    /// A gpsd.
    case gpsd(GPSDEndpoint)
    /// A magnetometer through IIO, with what is beside it.
    case iio(IIOEndpoint)

    /// The UDP ports instruments' gateways send to: NMEA 0183 (10110 and 2000) and YD RAW (1457).
    static let udpPorts: [UInt16] = [10110, 2000, 1457]

    /// Reads a candidate given on the command line, as a source URL.
    /// - Throws: ``ScanCandidateError`` saying why it is not one `scan` can listen to.
    init(parsing text: String) throws(ScanCandidateError) {
        switch SourceSpecification.parse(text) {
        case .failure(let error):
            throw ScanCandidateError(reason: "\(LogText.printable(text)): \(error.reason)")
        case .success(let specification):
            switch specification.kind {
            case .stream(var endpoint, _):
                switch endpoint.transport {
                case .serial(let path, _) where !text.contains("baud="):
                    endpoint.transport = .serial(path: path, baud: .automatic)
                case .standardInput, .childProcess:
                    throw ScanCandidateError(reason: "\(LogText.printable(text)): scan listens to devices and networks, not standard input or a program")
                default:
                    break
                }
                self = .stream(endpoint)
            case .gpsd(let endpoint): self = .gpsd(endpoint)
            case .iio(let endpoint): self = .iio(endpoint)
            case .simulation, .replay:
                throw ScanCandidateError(reason: "\(LogText.printable(text)): scan listens to devices and networks; a simulation or a recording is not one")
            }
        }
    }

    /// The candidate as a source URL (a serial line to be tried at every rate without `baud=`).
    /// Control characters in it are escaped: a host or a path is the user's text.
    var description: String {
        let url = switch self {
        case .stream(let endpoint):
            if case .serial(let path, .automatic) = endpoint.transport { "serial://\(path)" } else { endpoint.description }
        case .gpsd(let endpoint): endpoint.description
        case .iio(let endpoint): endpoint.description
        }
        return LogText.printable(url, limit: 256)
    }

    /// What the machine has: serial ports (`/dev/serial/by-id/*` first, then ttyUSB, ttyACM,
    /// ttyAMA and ttyS with a driver and a port), CAN interfaces, UDP 10110, 2000 and 1457, gpsd
    /// at 127.0.0.1:2947, and each IIO magnetometer.
    /// - Parameters:
    ///   - devices: What stands for `/dev`.
    ///   - system: What stands for `/sys`.
    static func discover(devices: String = "/dev", system: String = "/sys") -> [ScanCandidate] {
        var found: [ScanCandidate] = []
        let files = FileManager.default
        var seen = Set<String>()
        let byID = devices + "/serial/by-id"
        for name in ((try? files.contentsOfDirectory(atPath: byID)) ?? []).sorted() {
            let path = byID + "/" + name
            let target = (try? files.destinationOfSymbolicLink(atPath: path)).map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: byID + "/")).standardizedFileURL.lastPathComponent }
            if let target { seen.insert(target) }
            found.append(.stream(NMEAStreamEndpoint(transport: .serial(path: path, baud: .automatic), noDataTimeout: nil)))
        }
        let ttys = ((try? files.contentsOfDirectory(atPath: system + "/class/tty")) ?? []).filter { name in
            ["ttyUSB", "ttyACM", "ttyAMA", "ttyS"].contains { name.hasPrefix($0) && name.dropFirst($0.count).allSatisfy(\.isNumber) }
        }
        for name in ttys.sorted(by: { ($0.filter(\.isLetter), Int($0.filter(\.isNumber)) ?? 0) < ($1.filter(\.isLetter), Int($1.filter(\.isNumber)) ?? 0) })
        where !seen.contains(name) {
            let directory = system + "/class/tty/" + name
            guard files.fileExists(atPath: directory + "/device/driver") else { continue }
            // An 8250 driver registers ttyS0–3 whether a UART is there or not: type 0 is none.
            if name.hasPrefix("ttyS"), let type = try? String(contentsOfFile: directory + "/type", encoding: .utf8),
                type.trimmingCharacters(in: .whitespacesAndNewlines) == "0" { continue }
            found.append(.stream(NMEAStreamEndpoint(transport: .serial(path: devices + "/" + name, baud: .automatic), noDataTimeout: nil)))
        }
        let interfaces = ((try? files.contentsOfDirectory(atPath: system + "/class/net")) ?? []).sorted()
        for name in interfaces {
            guard let type = try? String(contentsOfFile: system + "/class/net/\(name)/type", encoding: .utf8),
                type.trimmingCharacters(in: .whitespacesAndNewlines) == "280" else { continue }  // ARPHRD_CAN
            found.append(.stream(NMEAStreamEndpoint(transport: .socketCAN(interface: name), noDataTimeout: nil, framing: .socketCAN)))
        }
        for port in udpPorts {
            found.append(.stream(NMEAStreamEndpoint(transport: .udp(address: nil, port: port), noDataTimeout: nil)))
        }
        found.append(.gpsd(GPSDEndpoint(host: "127.0.0.1")))
        let root = system + "/bus/iio/devices"
        let magnetometers = IIODevice.all(under: root).filter { $0.types.contains(.magnetometer) }
        for (index, magnetometer) in magnetometers.enumerated() {
            var endpoint = IIOEndpoint(magnetometer: index == 0 ? nil : magnetometer.id)
            if root != IIOEndpoint.systemRoot { endpoint.root = root }
            found.append(.iio(endpoint))
        }
        return found
    }
}
