// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A gpsd that misbehaves on purpose, for testing that a client stays responsive, stops when
/// told, and keeps its memory, threads and descriptors bounded.
///
/// It listens on 127.0.0.1 on a port the system chooses (``port``), speaks enough of gpsd's
/// protocol to be watched (`VERSION`, then `DEVICES` and `WATCH` once the client writes its
/// `?WATCH`), and then does what its ``Behaviour`` says, to every client, until ``stop()`` (also
/// run on deinit). Each connection has a thread of its own; everything it writes is bounded in
/// rate by the socket's own back-pressure or a short pause.
public final class HostileGPSD: Sendable {
    /// How the server misbehaves once a client watches.
    public enum Behaviour: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Lines of random bytes, broken JSON and truncated sentences, with a valid
        /// `$GPHDT,123.4,T` every tenth line.
        case garbage
        /// Lines of 1 MiB, each followed by a valid `$GPHDT,123.4,T`.
        case oversizedLines
        /// The handshake one byte every 50 ms, never finished.
        case drip
        /// Accepts the connection and never sends a byte.
        case silence
        /// Five valid headings, then a TCP reset.
        case reset
        /// Valid headings as fast as the socket takes them.
        case flood
        /// A `DEVICES` report of ten devices with 200-character paths (libgps 3.22's JSON reader
        /// loops forever on it), then a valid heading every 50 ms.
        case absurdDevices
        /// A compass with a magnetometer calibration alarm: five `ATT` reports with `mag_st` `C`,
        /// then good ones (`mag_st` `N`), one every 50 ms.
        case calibrationAlarm

        /// The behaviour's name, such as `drip`.
        public var description: String { rawValue }
    }

    /// Why the server could not start listening.
    public struct Failure: Error, CustomStringConvertible {
        /// The system's error number.
        public let errorNumber: Int32
        /// `cannot listen: REASON`.
        public var description: String { "cannot listen: \(String(cString: strerror(errorNumber)))" }
    }

    private struct State {
        var isStopped = false
        var clients: [Int32] = []
        var connections = 0
    }

    /// The port it listens on.
    public let port: UInt16
    /// What it does.
    public let behaviour: Behaviour
    private let listener: Int32
    private let state = Mutex(State())

    /// The sentence every behaviour that sends headings sends: true heading 123.4°.
    public static let heading = sentence("GPHDT,123.4,T")

    /// Starts listening, and accepting on a thread of its own.
    /// - Parameter behaviour: What to do with each client.
    /// - Throws: ``Failure`` when no socket can be bound.
    public init(_ behaviour: Behaviour) throws(Failure) {
        self.behaviour = behaviour
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(errorNumber: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            let error = errno
            close(descriptor)
            throw Failure(errorNumber: error)
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// How many connections it has accepted.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// Stops accepting and closes every connection; safe to call more than once.
    public func stop() {
        let clients: [Int32]? = state.withLock { state in
            guard !state.isStopped else { return nil }
            state.isStopped = true
            defer { state.clients = [] }
            return state.clients
        }
        guard let clients else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for client in clients { shutdown(client, Int32(SHUT_RDWR)) }
    }

    /// An NMEA sentence with its checksum and line end.
    /// - Parameter body: What goes between `$` and `*`, such as `GPHDT,123.4,T`.
    public static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(checksum, radix: 16, uppercase: true)
        return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)\r\n"
    }

    private var isStopped: Bool { state.withLock { $0.isStopped } }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            var noSignal: Int32 = 1
            setsockopt(client, SOL_SOCKET, SO_KEEPALIVE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
            let accepted = state.withLock { state in
                guard !state.isStopped else { return false }
                state.clients.append(client)
                state.connections += 1
                return true
            }
            guard accepted else {
                close(client)
                return
            }
            Thread { [self] in
                serve(client)
                state.withLock { $0.clients.removeAll { $0 == client } }
                close(client)
            }.start()
        }
    }

    private static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"
    private static let watch = #"{"class":"WATCH","enable":true,"json":true,"nmea":true,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"# + "\n"
    private static let devices = #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyUSB0","activated":"2026-11-23T10:00:00.000Z","flags":1,"driver":"NMEA0183","native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}"# + "\n"

    /// One client: handshake, then the behaviour, until the client or the server goes.
    private func serve(_ client: Int32) {
        switch behaviour {
        case .silence:
            waitUntilStopped(client)
            return
        case .drip:
            for byte in Array((Self.version + Self.devices + Self.watch).utf8) {
                guard !isStopped, send(client, [byte]) else { return }
                usleep(50_000)
            }
            waitUntilStopped(client)
            return
        default:
            break
        }
        guard send(client, Array(Self.version.utf8)), awaitWatchRequest(client) else { return }
        let devices =
            behaviour == .absurdDevices
            ? #"{"class":"DEVICES","devices":["#
                + (0..<10).map { #"{"class":"DEVICE","path":"/dev/"# + String(repeating: "x", count: 200) + "\($0)\",\"activated\":\"2026-11-23T10:00:00.000Z\",\"flags\":1,\"driver\":\"NMEA0183\"}" }
                .joined(separator: ",") + "]}\n"
            : Self.devices
        guard send(client, Array((devices + Self.watch).utf8)) else { return }
        var generator = SystemRandomNumberGenerator()
        var count = 0
        while !isStopped {
            count += 1
            let line: [UInt8]
            switch behaviour {
            case .garbage:
                line = count % 10 == 0 ? Array(Self.heading.utf8) : Self.garbageLine(count, using: &generator)
                if count % 100 == 0 { usleep(1000) }
            case .oversizedLines:
                line = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20) + [0x0A] + Array(Self.heading.utf8)
            case .reset:
                if count > 5 {
                    var linger = linger(l_onoff: 1, l_linger: 0)
                    setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                    return  // closing with linger 0 sends a reset
                }
                line = Array(Self.heading.utf8)
            case .flood:
                line = Array(Self.heading.utf8)
            case .absurdDevices:
                line = Array(Self.heading.utf8)
                usleep(50_000)
            case .calibrationAlarm:
                line = Array((#"{"class":"ATT","device":"/dev/ttyUSB0","heading":210.5,"mag_st":""# + (count <= 5 ? "C" : "N") + "\"}\n").utf8)
                usleep(50_000)
            case .silence, .drip:
                return
            }
            guard send(client, line) else { return }
        }
    }

    private static func garbageLine(_ count: Int, using generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        switch count % 4 {
        case 0: return (0..<Int.random(in: 1...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }.filter { $0 != 0x0A } + [0x0A]
        case 1: return Array(#"{"class":"ATT","heading":"#.utf8) + [0x0A]
        case 2: return Array("$GPHDT,12\n".utf8)
        default: return Array(#"{"class":"TPV","time":1e300,"lat":1e308,"altHAE":-6371000,"track":"#.utf8) + [0x0A]
        }
    }

    /// Reads until the client has sent its `?WATCH` (any bytes will do); `false` when it went.
    private func awaitWatchRequest(_ client: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 512)
        while !isStopped {
            var request = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 100) >= 0 else { return false }
            guard request.revents != 0 else { continue }
            return recv(client, &buffer, buffer.count, 0) > 0
        }
        return false
    }

    /// Holds the connection open, reading and discarding, until the server stops or the client goes.
    private func waitUntilStopped(_ client: Int32) {
        var buffer = [UInt8](repeating: 0, count: 512)
        while !isStopped {
            var request = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 100) >= 0 else { return }
            if request.revents != 0, recv(client, &buffer, buffer.count, 0) <= 0 { return }
        }
    }

    /// Sends all of `bytes`; `false` when the client went or the server stopped.
    private func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard !isStopped else { return false }
            var request = pollfd(fd: client, events: Int16(POLLOUT), revents: 0)
            guard poll(&request, 1, 100) >= 0 else { return false }
            guard request.revents != 0 else { continue }
            let sent = bytes.withUnsafeBufferPointer { Glibc.send(client, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            offset += sent
        }
        return true
    }
}
