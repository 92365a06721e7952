// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP client for the tests that reads lines, with a bound on each wait: a real peer of
/// headingd's network outputs (and of gpsd), without a framework in between.
///
/// Every wait runs on a thread of its own (``offCooperativePool(_:)``): a test awaits it and
/// holds none of the cooperative pool's two threads, which every other test needs.
final class LineClient: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var isClosed = false
    }

    private let descriptor: Int32
    private let state = Mutex(State())

    /// Whether the server closed the connection.
    var isClosed: Bool { state.withLock { $0.isClosed } }
    /// What was received after the last complete line (a binary frame, say).
    var unreadBytes: [UInt8] { state.withLock { $0.pending } }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Connects to 127.0.0.1:`port`, retrying for up to `timeout` while nothing listens yet.
    /// - Parameter receiveBuffer: A small `SO_RCVBUF`, for a client that will not read.
    static func connect(port: UInt16, receiveBuffer: Int32? = nil, timeout: Duration = .seconds(10)) async throws -> LineClient {
        try await offCooperativePool { try LineClient(descriptor: connectBlocking(port: port, receiveBuffer: receiveBuffer, timeout: timeout)) }
    }

    private static func connectBlocking(port: UInt16, receiveBuffer: Int32?, timeout: Duration) throws -> Int32 {
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
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected == 0 { return socketDescriptor }
            Glibc.close(socketDescriptor)
            guard ContinuousClock.now < deadline else { throw POSIXError(.ECONNREFUSED) }
            usleep(50_000)  // nothing to await: the server is not listening yet
        }
    }

    deinit { Glibc.close(descriptor) }

    /// Ends the connection now (the descriptor is closed with the client).
    func disconnect() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Sends `text`.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next complete line (without its line end), or `nil` after `timeout` or at the end.
    func readLine(timeout: Duration = .seconds(10)) async -> String? {
        await offCooperativePool { self.readLineBlocking(timeout: timeout) }
    }

    /// Whether the server closes the connection within `timeout` (lines sent before are skipped).
    func waitForClose(timeout: Duration) async -> Bool {
        await offCooperativePool {
            let deadline = ContinuousClock.now + timeout
            while !self.isClosed, ContinuousClock.now < deadline {
                _ = self.readLineBlocking(timeout: ContinuousClock.now.duration(to: deadline))
            }
            return self.isClosed
        }
    }

    /// Reads and discards everything until the server closes the connection (for binary streams,
    /// which have no lines); whether it closed within `timeout`.
    func drainUntilClosed(timeout: Duration) async -> Bool {
        await offCooperativePool {
            self.state.withLock { $0.pending.removeAll() }
            let deadline = ContinuousClock.now + timeout
            var chunk = [UInt8](repeating: 0, count: 65536)
            while !self.isClosed {
                guard self.waitForInput(until: deadline) else { return false }
                let count = chunk.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { self.state.withLock { $0.isClosed = true } }
            }
            return true
        }
    }

    private func readLineBlocking(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let (line, closed): (String?, Bool) = state.withLock { state in
                guard let newline = state.pending.firstIndex(of: 0x0A) else { return (nil, state.isClosed) }
                var line = Array(state.pending[..<newline])
                state.pending.removeFirst(newline + 1)
                if line.last == 0x0D { line.removeLast() }
                return (String(decoding: line, as: UTF8.self), false)
            }
            if let line { return line }
            guard !closed, waitForInput(until: deadline) else { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            state.withLock { state in
                if count <= 0 { state.isClosed = true } else { state.pending += chunk[0..<count] }
            }
        }
    }

    /// Waits in `poll(2)` until there is input or `deadline` passes.
    private func waitForInput(until deadline: ContinuousClock.Instant) -> Bool {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return false }
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000) + 1
        return poll(&request, 1, milliseconds) > 0
    }
}
