// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP client for the tests that reads lines, with a bound on each wait: a real peer of
/// headingd's network outputs (and of gpsd), without a framework in between.
final class LineClient {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    /// Whether the server closed the connection.
    private(set) var isClosed = false
    /// What was received after the last complete line (a binary frame, say).
    var unreadBytes: [UInt8] { pending }

    /// Connects to 127.0.0.1:`port`, retrying for up to `timeout` while nothing listens yet.
    /// - Parameter receiveBuffer: A small `SO_RCVBUF`, for a client that will not read.
    init(port: UInt16, receiveBuffer: Int32? = nil, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if var size = receiveBuffer {
                setsockopt(socketDescriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected == 0 {
                descriptor = socketDescriptor
                return
            }
            close(socketDescriptor)
            guard ContinuousClock.now < deadline else { throw POSIXError(.ECONNREFUSED) }
            usleep(50_000)  // nothing to await: the server is not listening yet
        }
    }

    deinit { close(descriptor) }

    /// Sends `text`.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next complete line (without its line end), or `nil` after `timeout` or at the end.
    func readLine(timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                var line = Array(pending[..<newline])
                pending.removeFirst(newline + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero, !isClosed else { return nil }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000) + 1
            guard poll(&request, 1, milliseconds) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                isClosed = true
                continue
            }
            pending += chunk[0..<count]
        }
    }

    /// Whether the server closes the connection within `timeout` (lines sent before are skipped).
    func waitForClose(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !isClosed, ContinuousClock.now < deadline {
            _ = readLine(timeout: ContinuousClock.now.duration(to: deadline))
        }
        return isClosed
    }

    /// Reads and discards everything until the server closes the connection (for binary streams,
    /// which have no lines); whether it closed within `timeout`.
    func drainUntilClosed(timeout: Duration) -> Bool {
        pending.removeAll()
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !isClosed {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000) + 1) > 0 else { return false }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { isClosed = true }
        }
        return true
    }
}
