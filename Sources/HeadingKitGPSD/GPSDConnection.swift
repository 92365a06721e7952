// headingd — HeadingKitGPSD
// SPDX-License-Identifier: Apache-2.0

import CGPS
import HeadingKit
package import HeadingPorts

#if canImport(Glibc)
import Glibc
#endif

/// One connection to gpsd, watching JSON and raw NMEA: opened and watched through libgps, read
/// line by line by headingd itself, closed through libgps.
///
/// libgps is used only for what it does safely — `gps_open`, `gps_stream` (the `?WATCH` request)
/// and `gps_close`. Its reader, `gps_read`, is never called: libgps 3.22's JSON parser loops
/// forever on a `DEVICES` report listing more than four devices or a very long device path, so
/// gpsd's bytes go to headingd's own bounded line splitter and decoder instead. Memory stays
/// bounded (a line over ``messageCapacity`` is reported by its length and dropped), and a gpsd that
/// drips a byte at a time wakes the reader once per byte, never spins it.
///
/// Not Sendable: libgps's `gps_data_t` belongs to the one thread that reads it
/// (``GPSDHeadingSource``'s reader thread). libgps sends with `write(2)`, so a write to a gpsd
/// that just died raises `SIGPIPE`: the reader thread blocks that signal for itself.
package final class GPSDConnection {
    /// Why gpsd could not be reached or the connection broke.
    package struct Failure: Error {
        /// What happened, for a fault's reason.
        package let reason: String
        /// Whether the system refused access (`EACCES`/`EPERM`), rather than gpsd being unreachable.
        package let isAccessDenied: Bool
    }

    /// The longest message kept; gpsd's own limit for a JSON report is 10 KiB.
    package static let messageCapacity = 16 * 1024

    /// One line gpsd sent, or the length of one too long to keep.
    package enum Message {
        /// A JSON report or an NMEA sentence, without its line end; valid only during the call.
        case line(UnsafeBufferPointer<UInt8>)
        /// A line longer than ``GPSDConnection/messageCapacity``, with its length in bytes.
        case overlong(length: Int)
    }

    /// libgps's functions, loaded by the first connection (``CGPS``): a process that makes none
    /// never maps libgps, nor libdbus, libsystemd and the rest that it needs.
    private static let loaded: (library: cgps_library?, error: String) = {
        var reason: UnsafePointer<CChar>?
        guard let library = cgps_load(&reason) else { return (nil, reason.map { String(cString: $0) } ?? "cannot load libgps.so.28") }
        return (library.pointee, "")
    }()

    /// libgps's functions.
    private let library: cgps_library
    private let data: UnsafeMutablePointer<gps_data_t>
    /// The current line, up to ``messageCapacity`` bytes.
    private var line: [UInt8] = []
    /// The current line's full length, which may exceed what `line` keeps.
    private var lineLength = 0
    /// What one `read(2)` brings.
    private var chunk = [UInt8](repeating: 0, count: 4096)
    private var isOpen = false
    /// The wait set on the socket (`SO_RCVTIMEO`), in microseconds; set again only when it changes.
    private var receiveTimeout: Int32 = -1

    /// Connects to gpsd and asks it to stream JSON reports and raw NMEA.
    ///
    /// `gps_open` connects with a blocking `connect(2)`, which a firewall that drops packets holds
    /// for over two minutes. So the address is first tried without libgps, waiting at most
    /// `connectTimeout` and no longer than `signal` allows; only an address that answered is
    /// handed to `gps_open`.
    /// - Parameters:
    ///   - endpoint: Where gpsd listens, and the device to watch.
    ///   - connectTimeout: How long the first try may wait for an answer.
    ///   - signal: Ends the wait early when set.
    /// - Throws: ``Failure`` when gpsd cannot be reached.
    package init(endpoint: GPSDEndpoint, connectTimeout: Duration, signal: StopSignal) throws(Failure) {
        guard let library = Self.loaded.library else {
            throw Failure(reason: "the gpsd source needs libgps (Debian's libgps28), which cannot be loaded: \(Self.loaded.error)", isAccessDenied: false)
        }
        self.library = library
        data = .allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        line.reserveCapacity(Self.messageCapacity)
        if let error = Self.connectionError(host: endpoint.host, port: endpoint.port, timeout: connectTimeout, signal: signal) {
            let reason = error == ETIMEDOUT
                ? "no answer from gpsd at \(endpoint.host):\(endpoint.port) within \(connectTimeout) (a firewall that drops packets, or no such host)"
                : "cannot connect to gpsd at \(endpoint.host):\(endpoint.port): \(String(cString: strerror(error)))"
            throw Failure(reason: reason, isAccessDenied: error == EACCES || error == EPERM)
        }
        let status = library.open(endpoint.host, String(endpoint.port), data)
        // libgps replaces errno with its own NL_* code (negative): the system's reason is lost,
        // so a refused connection is tried once more without libgps to learn it.
        let libgpsCode = errno
        // A throw from here on still runs deinit (every property is set), which frees `data`.
        guard status == 0 else {
            var reason = "cannot connect to gpsd at \(endpoint.host):\(endpoint.port)"
            var systemError: Int32?
            if libgpsCode == NL_NOCONNECT {
                systemError = Self.connectionError(host: endpoint.host, port: endpoint.port, timeout: .seconds(1), signal: signal)
            }
            if let systemError {
                reason += ": \(String(cString: strerror(systemError)))"
            } else {
                reason += ": \(library.errstr(libgpsCode < 0 ? libgpsCode : status).map { String(cString: $0) } ?? "libgps error \(status)")"
            }
            throw Failure(reason: reason, isAccessDenied: systemError == EACCES || systemError == EPERM)
        }
        isOpen = true
        var flags = UInt32(WATCH_ENABLE | WATCH_JSON | WATCH_NMEA)
        let result: Int32
        if let device = endpoint.device {
            flags |= UInt32(WATCH_DEVICE)
            result = device.withCString { library.stream(data, flags, UnsafeMutableRawPointer(mutating: $0)) }
        } else {
            result = library.stream(data, flags, nil)
        }
        guard result == 0 else {
            close()
            throw Failure(reason: "gpsd at \(endpoint.host):\(endpoint.port) refused the watch request", isAccessDenied: false)
        }
        // The reader waits in read(2) itself, for at most the socket's receive timeout (set by
        // `readMessages`): one system call per wake-up, not a poll(2) and a read.
        let descriptor = data.pointee.gps_fd
        let descriptorFlags = fcntl(descriptor, F_GETFL)
        if descriptorFlags >= 0, descriptorFlags & O_NONBLOCK != 0 { _ = fcntl(descriptor, F_SETFL, descriptorFlags & ~O_NONBLOCK) }
    }

    deinit {
        close()
        data.deallocate()
    }

    /// Waits at most `timeout` microseconds (at least 1 ms) for gpsd, reads what it has sent
    /// (one `read(2)`) and hands each complete line to `body`, in order. A partial line is kept
    /// for the next call; a line that arrived whole is handed over where it was read, not copied.
    /// - Parameters:
    ///   - microseconds: The longest wait; nothing is handed over when it passes first.
    ///   - body: Called once per complete line.
    /// - Throws: ``Failure`` when the connection closed or broke.
    package func readMessages(waitingAtMost microseconds: Int32, _ body: (Message) -> Void) throws(Failure) {
        let descriptor = data.pointee.gps_fd
        let timeout = max(1000, microseconds)  // 0 would be no timeout at all: a wait without end
        if timeout != receiveTimeout {
            var value = timeval(tv_sec: Int(timeout / 1_000_000), tv_usec: Int(timeout % 1_000_000))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
            receiveTimeout = timeout
        }
        let count = chunk.withUnsafeMutableBufferPointer { read(descriptor, $0.baseAddress, $0.count) }
        if count == 0 { throw Failure(reason: "connection to gpsd closed", isAccessDenied: false) }
        if count < 0 {
            let error = errno
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return }
            throw Failure(reason: "connection to gpsd closed: \(String(cString: strerror(error)))", isAccessDenied: false)
        }
        var start = 0
        for index in 0..<count where chunk[index] == 0x0A {
            if lineLength == 0 {
                chunk.withUnsafeBufferPointer { deliver(UnsafeBufferPointer(rebasing: $0[start..<index]), body) }
            } else {
                append(chunk[start..<index])
                deliverLine(body)
            }
            start = index + 1
        }
        append(chunk[start..<count])
    }

    /// Hands a whole line to `body`, without its CR; an empty one is not handed over.
    private func deliver(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Message) -> Void) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0D { end -= 1 }
        guard end > 0 else { return }
        body(.line(UnsafeBufferPointer(rebasing: bytes[..<end])))
    }

    /// Adds bytes to the current line, keeping at most ``messageCapacity`` of them.
    private func append(_ bytes: ArraySlice<UInt8>) {
        let room = Self.messageCapacity - line.count
        if room > 0 { line.append(contentsOf: bytes.prefix(room)) }
        lineLength += bytes.count
    }

    /// Hands the current line to `body` (without its CR) and starts the next.
    private func deliverLine(_ body: (Message) -> Void) {
        defer {
            line.removeAll(keepingCapacity: true)
            lineLength = 0
        }
        if lineLength > Self.messageCapacity {
            body(.overlong(length: lineLength))
            return
        }
        line.withUnsafeBufferPointer { deliver($0, body) }
    }

    /// Why a TCP connection to `host:port` fails, as the system says (`ECONNREFUSED`, `EACCES`,
    /// …, `ETIMEDOUT` after `timeout` without an answer, `ECANCELED` when `signal` was set while
    /// waiting); `nil` when it does not fail or the host cannot be resolved. The stream sources'
    /// connect (`TCPClientStream`), closed at once.
    static func connectionError(host: String, port: UInt16, timeout: Duration, signal: StopSignal) -> Int32? {
        do throws(PortFailure) {
            try TCPClientStream(host: host, port: port, timeout: timeout, signal: signal).close()
            return nil
        } catch {
            return error.errorNumber
        }
    }

    /// Closes the socket; safe to call more than once.
    func close() {
        guard isOpen else { return }
        isOpen = false
        _ = library.close(data)
    }
}
