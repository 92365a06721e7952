// headingd — HeadingKitGPSD
// SPDX-License-Identifier: Apache-2.0

import CGPS

#if canImport(Glibc)
import Glibc
#endif

/// One libgps connection to gpsd, watching JSON and raw NMEA: opened, read line by line, closed.
///
/// Not Sendable: libgps's `gps_data_t` belongs to the one thread that reads it
/// (``GPSDHeadingSource``'s reader thread). libgps sends with `write(2)`, so a write to a gpsd
/// that just died raises `SIGPIPE`: the reader thread blocks that signal for itself.
final class GPSDConnection {
    /// Why gpsd could not be reached or the connection broke.
    struct Failure: Error {
        /// What happened, for a fault's reason.
        let reason: String
        /// Whether the system refused access (`EACCES`/`EPERM`), rather than gpsd being unreachable.
        let isAccessDenied: Bool
    }

    /// The longest message kept; gpsd's own limit for a JSON report is 10 KiB.
    static let messageCapacity = 16 * 1024

    private let data: UnsafeMutablePointer<gps_data_t>
    private var message: [CChar]
    private var isOpen = false

    /// Connects to gpsd and asks it to stream JSON reports and raw NMEA.
    /// - Parameter endpoint: Where gpsd listens, and the device to watch.
    /// - Throws: ``Failure`` when gpsd cannot be reached.
    init(endpoint: GPSDEndpoint) throws(Failure) {
        data = .allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        message = [CChar](repeating: 0, count: Self.messageCapacity)
        let status = gps_open(endpoint.host, String(endpoint.port), data)
        // libgps replaces errno with its own NL_* code (negative): the system's reason is lost,
        // so a refused connection is tried once more without libgps to learn it.
        let libgpsCode = errno
        // A throw from here on still runs deinit (every property is set), which frees `data`.
        guard status == 0 else {
            var reason = "cannot connect to gpsd at \(endpoint.host):\(endpoint.port)"
            var systemError: Int32?
            if libgpsCode == NL_NOCONNECT { systemError = Self.connectionError(host: endpoint.host, port: endpoint.port) }
            if let systemError {
                reason += ": \(String(cString: strerror(systemError)))"
            } else {
                reason += ": \(String(cString: gps_errstr(libgpsCode < 0 ? libgpsCode : status)))"
            }
            throw Failure(reason: reason, isAccessDenied: systemError == EACCES || systemError == EPERM)
        }
        isOpen = true
        var flags = UInt32(WATCH_ENABLE | WATCH_JSON | WATCH_NMEA)
        let result: Int32
        if let device = endpoint.device {
            flags |= UInt32(WATCH_DEVICE)
            result = device.withCString { gps_stream(data, flags, UnsafeMutableRawPointer(mutating: $0)) }
        } else {
            result = gps_stream(data, flags, nil)
        }
        guard result == 0 else {
            close()
            throw Failure(reason: "gpsd at \(endpoint.host):\(endpoint.port) refused the watch request", isAccessDenied: false)
        }
    }

    deinit {
        close()
        data.deallocate()
    }

    /// Whether a message is waiting, after at most `timeout` microseconds.
    func waitForMessage(timeout microseconds: Int32) -> Bool {
        gps_waiting(data, microseconds)
    }

    /// Reads one message (a JSON report or an NMEA sentence) and hands its bytes, without the line
    /// ending, to `body`; returns `false` without calling `body` when no complete line was there.
    /// - Throws: ``Failure`` when the connection closed or broke.
    func readMessage(_ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(Failure) -> Bool {
        data.pointee.set = 0  // cumulative in libgps: cleared before each read
        message[0] = 0
        errno = 0
        let status = message.withUnsafeMutableBufferPointer { buffer in
            gps_read(data, buffer.baseAddress, Int32(buffer.count))
        }
        if status < 0 {
            let error = errno
            var reason = "connection to gpsd closed"
            if error != 0 { reason += ": \(String(cString: strerror(error)))" }
            throw Failure(reason: reason, isAccessDenied: false)
        }
        return message.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UInt8.self) { bytes in
                var length = strnlen(buffer.baseAddress!, bytes.count)
                while length > 0, bytes[length - 1] == 0x0A || bytes[length - 1] == 0x0D { length -= 1 }
                guard length > 0 else { return false }
                body(UnsafeBufferPointer(rebasing: bytes[0..<length]))
                return true
            }
        }
    }

    /// Why a TCP connection to `host:port` fails, as the system says (`ECONNREFUSED`, `EACCES`,
    /// …), waiting at most one second; `nil` when it does not fail or the host cannot be resolved.
    static func connectionError(host: String, port: UInt16) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let address = result else { return nil }
        defer { freeaddrinfo(result) }
        let socketDescriptor = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketDescriptor >= 0 else { return errno }
        defer { Glibc.close(socketDescriptor) }
        if connect(socketDescriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return nil }
        guard errno == EINPROGRESS else { return errno }
        var request = pollfd(fd: socketDescriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&request, 1, 1000) == 1 else { return ETIMEDOUT }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(socketDescriptor, SOL_SOCKET, SO_ERROR, &error, &length)
        return error == 0 ? nil : error
    }

    /// Closes the socket; safe to call more than once.
    func close() {
        guard isOpen else { return }
        isOpen = false
        gps_close(data)
    }
}
