// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP server the test scripts byte by byte, standing in for a multiplexer or a WiFi gateway
/// that misbehaves: it accepts, sends what it is told, stalls, cuts a sentence in half, closes.
/// Every blocking call runs off the cooperative pool.
final class FeedServer: Sendable {
    private let listener: Int32
    /// The port it listens on (127.0.0.1).
    let port: UInt16
    private let accepted = Mutex(0)

    /// How many connections it has accepted.
    var connections: Int { accepted.withLock { $0 } }

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var chosen: UInt16 = 0
        for _ in 0..<50 {
            let port = GPSFake.freePort()
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 {
                chosen = port
                break
            }
        }
        guard chosen != 0, listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        port = chosen
    }

    deinit { close(listener) }

    /// Waits at most `timeout` for the next connection.
    /// - Returns: The connection, or `nil` when none came.
    func accept(timeout: Duration = .seconds(10)) async -> Connection? {
        let listener = listener
        let milliseconds = Int32(timeout.components.seconds * 1000)
        let descriptor = await offCooperativePool { () -> Int32 in
            var request = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, milliseconds) == 1 else { return -1 }
            return Glibc.accept(listener, nil, nil)
        }
        guard descriptor >= 0 else { return nil }
        accepted.withLock { $0 += 1 }
        return Connection(descriptor: descriptor)
    }

    /// One accepted connection.
    final class Connection: Sendable {
        private let descriptor: Int32

        init(descriptor: Int32) { self.descriptor = descriptor }

        deinit { close(descriptor) }

        /// Sends `text`; returns whether all of it went.
        @discardableResult
        func send(_ text: String) -> Bool { send(bytes: Array(text.utf8)) }

        /// Sends `bytes`; returns whether all of them went.
        @discardableResult
        func send(bytes: [UInt8]) -> Bool {
            return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }

        /// What the peer sent within `milliseconds` (waiting for the first byte at most that long,
        /// then taking what is there); empty when nothing came, `nil` once the peer has closed.
        func receive(within milliseconds: Int32) async -> [UInt8]? {
            let descriptor = descriptor
            return await offCooperativePool {
                var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&request, 1, milliseconds) == 1 else { return [] }
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                return count <= 0 ? (count == 0 ? nil : []) : Array(buffer[0..<count])
            }
        }

        /// Whether the peer has closed its side (reads end of file within `milliseconds`).
        func peerClosed(within milliseconds: Int32) async -> Bool {
            let descriptor = descriptor
            return await offCooperativePool {
                var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&request, 1, milliseconds) == 1 else { return false }
                var byte: UInt8 = 0
                return recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT)) == 0
            }
        }
    }
}

/// NMEA 0183 sentences with their checksums, for the tests' instruments.
enum Sentence {
    /// `$BODY*hh`.
    static func make(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(sum, radix: 16, uppercase: true)
        return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)\r\n"
    }
}
