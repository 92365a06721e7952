// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection to a multiplexer or a gateway, read as a client.
///
/// Connecting waits at most the connect timeout, in slices of 100 ms that see a stop (a firewall
/// that drops packets holds a blocking `connect(2)` for minutes); the connection is then read with
/// `poll(2)` and `read(2)`. The server closing it, or a reset, ends it. The gpsd source uses the
/// same connect to learn the system's reason before libgps connects (`GPSDConnection`), and the
/// NMEA 2000 node's link to a Yacht Devices gateway (``YachtDevicesRawLink``) its connection.
package final class TCPClientStream: ByteStream {
    private var descriptor: Int32 = -1
    private let name: String

    /// Connects to `host:port`.
    /// - Parameters:
    ///   - host: A host name or an address.
    ///   - port: The TCP port.
    ///   - timeout: How long to wait for an answer.
    ///   - signal: Ends the wait early when set.
    ///   - wake: A descriptor whose readability ends the wait early too (a ``WakePipe``'s), or -1.
    ///   - noDelay: Whether small writes go at once (`TCP_NODELAY`: a frame a line to a gateway).
    /// - Throws: ``PortFailure`` naming the address and why.
    package init(
        host: String, port: UInt16, timeout: Duration, signal: StopSignal? = nil, wake: Int32 = -1, noDelay: Bool = false
    ) throws(PortFailure) {
        name = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let address = result else {
            throw PortFailure(code: .sourceUnavailable, reason: "cannot resolve \(LogText.printable(host, limit: 80)): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        let socketDescriptor = socket(
            address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0
        )
        guard socketDescriptor >= 0 else { throw .system(errno, "cannot make a socket for \(name)") }
        if noDelay {
            var yes: Int32 = 1
            setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        if connect(socketDescriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 {
            let error = errno
            guard error == EINPROGRESS else {
                Glibc.close(socketDescriptor)
                throw .system(error, "cannot connect to \(name)")
            }
            let deadline = ContinuousClock.now.advanced(by: timeout)
            var requests = (pollfd(fd: socketDescriptor, events: Int16(POLLOUT), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            while true {
                let remaining = ContinuousClock.now.duration(to: deadline)
                let stopped = signal?.isStopped == true || requests.1.revents != 0
                if stopped || remaining <= .zero {
                    Glibc.close(socketDescriptor)
                    throw PortFailure(
                        code: .sourceUnavailable,
                        reason: stopped ? "stopped while connecting to \(name)" : "no answer from \(name) within \(timeout)",
                        errorNumber: stopped ? ECANCELED : ETIMEDOUT
                    )
                }
                let slice = min(remaining, .milliseconds(100))
                let ready = withUnsafeMutableBytes(of: &requests) { poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, slice.pollMilliseconds) }
                if ready > 0, requests.0.revents != 0 { break }
                if ready < 0, errno != EINTR {
                    let error = errno
                    Glibc.close(socketDescriptor)
                    throw .system(error, "cannot connect to \(name)")
                }
            }
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(socketDescriptor, SOL_SOCKET, SO_ERROR, &socketError, &length)
            guard socketError == 0 else {
                Glibc.close(socketDescriptor)
                throw .system(socketError, "cannot connect to \(name)")
            }
        }
        descriptor = socketDescriptor
    }

    deinit { close() }

    /// The connected socket, to wait on in `poll(2)`; -1 once closed.
    package var fileDescriptor: Int32 { descriptor }

    package func read(into buffer: UnsafeMutableRawBufferPointer, waitingAtMost milliseconds: Int32, wakingOn wake: Int32) -> ByteStreamRead {
        let closed = { PortFailure(code: .sourceUnavailable, reason: "\(self.name) closed the connection") }
        if let result = waitReadable(descriptor, milliseconds: milliseconds, wake: wake, hangUp: closed) { return result }
        let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
        if count > 0 { return .bytes(count: count, sender: 0) }
        if count == 0 { return .ended(closed()) }
        let error = errno
        if error == EAGAIN || error == EINTR { return .timedOut }
        return .ended(.system(error, "connection to \(name) broke"))
    }

    package func write(_ bytes: [UInt8]) -> Bool { descriptor >= 0 && writeAll(descriptor, bytes) }

    package func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }
}
