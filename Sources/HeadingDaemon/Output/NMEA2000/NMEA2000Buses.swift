// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Synchronization

/// The NMEA 2000 buses this process is on, each with one ``NMEA2000LocalNode`` shared by the NMEA
/// 2000 output's node on it and every source that reads it: a source hides the node's own frames
/// on its own bus, and a device at the node's address on another bus is a device.
///
/// Made once for the process and kept across reloads (the output may outlive the sources, or
/// the other way round). One bus is:
/// - a SocketCAN interface (`socketcan://can0` read, `nmea2000 = "socketcan://can0"` written);
/// - a serial device speaking Actisense, by its resolved path (`/dev/serial/by-id/…` and
///   `/dev/ttyUSB0` are one device);
/// - every Yacht Devices RAW gateway together: a source listening for its UDP datagrams cannot
///   say which gateway sent them, so a YD RAW source hides the node's frames whichever gateway
///   the node writes to.
final class NMEA2000Buses: Sendable {
    private let nodes = Mutex<[String: NMEA2000LocalNode]>([:])

    /// No bus yet.
    init() {}

    /// The presence of the output's node on `interface`.
    func node(on interface: NMEA2000OutputSettings.Interface) -> NMEA2000LocalNode {
        node(key: Self.key(interface))
    }

    /// The presence this process's node would have on the bus `endpoint` reads; `nil` for an
    /// endpoint that is no NMEA 2000 bus (NMEA 0183 text, a recording on standard input …).
    func node(readBy endpoint: NMEAStreamEndpoint) -> NMEA2000LocalNode? {
        Self.key(endpoint).map(node(key:))
    }

    private func node(key: String) -> NMEA2000LocalNode {
        nodes.withLock { nodes in
            if let node = nodes[key] { return node }
            let node = NMEA2000LocalNode()
            nodes[key] = node
            return node
        }
    }

    /// The bus an output's interface is.
    static func key(_ interface: NMEA2000OutputSettings.Interface) -> String {
        switch interface {
        case .socketCAN(let name): "socketcan:\(name)"
        case .actisense(let device, _): "serial:\(resolved(device))"
        case .yachtDevicesRaw: "ydraw"
        }
    }

    /// The bus an endpoint reads, if it reads one.
    static func key(_ endpoint: NMEAStreamEndpoint) -> String? {
        switch (endpoint.transport, endpoint.framing) {
        case (.socketCAN(let name), _): "socketcan:\(name)"
        case (.serial(let path, _), .actisense): "serial:\(resolved(path))"
        case (.tcp, .ydraw), (.udp, .ydraw): "ydraw"
        default: nil
        }
    }

    /// A device's path with its links resolved, or as given when it cannot be.
    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}
