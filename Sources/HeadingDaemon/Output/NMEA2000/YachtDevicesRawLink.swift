// headingd
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import HeadingKit
import NMEA2000

/// The NMEA 2000 output's link through a Yacht Devices gateway (YDWG-02, YDEN-02) in RAW mode over
/// TCP: each frame a line `09F11223 FF 12 34\r\n` out, the bus's frames as lines
/// `17:33:21.107 R 09F11223 FF 12 34` in, and each frame the gateway put on the bus echoed as a
/// `T` line. The frame's source address is headingd's own, so through the gateway headingd is a
/// node of its own (it claims, answers and beats); the gateway splits nothing, headingd sends
/// fast packets frame by frame.
///
/// Bounded: a line in is at most ``maximumLineLength`` bytes (a longer one is dropped to its
/// end), and at most one line out waits for room in the socket.
final class YachtDevicesRawLink: CANLink {
    /// The longest line kept: time, direction, identifier and 8 bytes take 46.
    static let maximumLineLength = 128

    private(set) var descriptor: Int32 = -1
    let host: String
    let port: Int
    var name: String { "tcp://\(host):\(port)?format=ydraw" }
    /// `T` lines heard: frames the gateway put on the bus (headingd's, echoed).
    private(set) var echoes = 0
    private var pending = PendingBytes(isSocket: true)
    private var line: [UInt8] = []
    private var discarding = false
    private var decoder = CANTextLineDecoder()

    /// Connects to the gateway, waiting at most `timeout` and no longer than `wake` stays quiet.
    /// - Throws: ``OutputOpenError`` with the system's reason (refused, unreachable, no such host, timed out).
    init(host: String, port: Int, wake: Int32, timeout: Duration = .seconds(5)) throws(OutputOpenError) {
        self.host = host
        self.port = port
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found else {
            throw OutputOpenError.cannotOpenLink("cannot find \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(found) }
        let created = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard created >= 0 else { throw OutputOpenError.cannotOpenLink("cannot make a socket: \(String(cString: strerror(errno)))") }
        descriptor = created
        var yes: Int32 = 1
        setsockopt(created, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        if connect(created, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else {
                let error = errno
                close()
                throw OutputOpenError.cannotOpenLink("cannot connect to \(host):\(port): \(String(cString: strerror(error)))")
            }
            let milliseconds = timeout.pollMilliseconds
            var fds = [pollfd(fd: created, events: Int16(POLLOUT), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, milliseconds)
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(created, SOL_SOCKET, SO_ERROR, &error, &size)
            guard ready > 0, fds[0].revents != 0, error == 0 else {
                close()
                let reason = ready == 0 ? "no answer in \(timeout)" : fds[1].revents != 0 ? "stopped" : String(cString: strerror(error == 0 ? ECONNREFUSED : error))
                throw OutputOpenError.cannotOpenLink("cannot connect to \(host):\(port): \(reason)")
            }
        }
    }

    deinit { close() }

    func write(_ frame: CANFrame) -> CANLinkWrite {
        pending.write({ Array(frame.yachtDevicesRawLine.utf8) }, to: descriptor, what: "the gateway \(host):\(port)")
    }

    func read(_ body: (CANFrame) -> Void) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Bounded: at most 16 reads a call.
        for _ in 0..<16 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 { return "the gateway \(host):\(port) closed the connection" }
            if count < 0 {
                let error = errno
                if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return nil }
                return "the gateway \(host):\(port): \(String(cString: strerror(error)))"
            }
            for byte in buffer[0..<count] {
                if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                    if !discarding, !line.isEmpty { decode(body) }
                    line.removeAll(keepingCapacity: true)
                    discarding = false
                } else if line.count >= Self.maximumLineLength {
                    discarding = true
                } else if !discarding {
                    line.append(byte)
                }
            }
        }
        return nil
    }

    private func decode(_ body: (CANFrame) -> Void) {
        let isEcho = line.count > 13 && line[13] == UInt8(ascii: "T")
        let decoded = line.withUnsafeBufferPointer { try? decoder.decode($0, format: .yachtDevicesRaw) }
        guard case .frame(let frame)? = decoded?.content else { return }
        if isEcho { echoes += 1 }
        let pgn = frame.identifier.pgn
        if pgn == NMEA2000PGN.isoRequest || pgn == NMEA2000PGN.addressClaim { body(frame) }
    }

    func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }
}
