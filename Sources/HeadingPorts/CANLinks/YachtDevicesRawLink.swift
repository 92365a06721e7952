// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
package import NMEA2000

/// The NMEA 2000 output's link through a Yacht Devices gateway (YDWG-02, YDEN-02) in RAW mode over
/// TCP: each frame a line `09F11223 FF 12 34\r\n` out, the bus's frames as lines
/// `17:33:21.107 R 09F11223 FF 12 34` in, and each frame the gateway put on the bus echoed as a
/// `T` line. The frame's source address is headingd's own, so through the gateway headingd is a
/// node of its own (it claims, answers and beats); the gateway splits nothing, headingd sends
/// fast packets frame by frame.
///
/// Bounded: a line in is at most ``maximumLineLength`` bytes (a longer one is dropped to its
/// end), and at most one line out waits for room in the socket.
package final class YachtDevicesRawLink: CANLink {
    /// The longest line kept: time, direction, identifier and 8 bytes take 46.
    package static let maximumLineLength = 128

    private let stream: TCPClientStream
    package var descriptor: Int32 { stream.fileDescriptor }
    package let host: String
    package let port: Int
    package var name: String { "tcp://\(host):\(port)?format=ydraw" }
    /// `T` lines heard: frames the gateway put on the bus (headingd's, echoed).
    package private(set) var echoes = 0
    private var pending = PendingBytes(isSocket: true)
    private var line: [UInt8] = []
    private var discarding = false
    private var decoder = CANTextLineDecoder()
    private var buffer = [UInt8](repeating: 0, count: 4096)

    /// Connects to the gateway (``TCPClientStream``, `TCP_NODELAY`), waiting at most `timeout`
    /// and no longer than `wake` stays quiet.
    /// - Throws: ``PortFailure`` with the system's reason (refused, unreachable, no such host, timed out).
    package init(host: String, port: Int, wake: Int32, timeout: Duration = .seconds(5)) throws(PortFailure) {
        self.host = host
        self.port = port
        guard let tcpPort = UInt16(exactly: port) else { throw PortFailure(code: .sourceUnavailable, reason: "port \(port) is not a TCP port") }
        stream = try TCPClientStream(host: host, port: tcpPort, timeout: timeout, wake: wake, noDelay: true)
    }

    package func write(_ frame: CANFrame) -> CANLinkWrite {
        pending.write({ Array(frame.yachtDevicesRawLine.utf8) }, to: descriptor, what: "the gateway \(host):\(port)")
    }

    package func read(_ body: (CANFrame) -> Void) -> String? {
        // Bounded: at most 16 reads a call.
        for _ in 0..<16 {
            let count: Int
            switch buffer.withUnsafeMutableBytes({ stream.read(into: $0, waitingAtMost: 0, wakingOn: -1) }) {
            case .bytes(let read, _): count = read
            case .timedOut: return nil
            case .ended(let failure):
                // "the gateway HOST:PORT closed the connection", or the system's reason after the address.
                return failure.errorNumber.map { "the gateway \(host):\(port): \(String(cString: strerror($0)))" } ?? "the gateway \(failure.reason)"
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
            // Less than the buffer: nothing more was waiting (the next read would wait a moment).
            if count < buffer.count { return nil }
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

    package func close() { stream.close() }
}
