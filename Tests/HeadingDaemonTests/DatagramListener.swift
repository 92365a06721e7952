// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting

@testable import HeadingDaemon

/// A real `AF_UNIX` datagram socket standing in for systemd's `$NOTIFY_SOCKET`: every datagram
/// it receives is recorded, in order.
final class DatagramListener: Sendable {
    /// The address to put in `$NOTIFY_SOCKET` (`@name` when abstract).
    let address: String
    /// Every message received.
    let messages = Recorder<String>()
    private let descriptor: Int32
    private let signal = Recorder<Bool>()

    /// Binds a socket at a new path in the temporary directory, or in the abstract namespace.
    init(abstract: Bool = false) throws {
        let name = "headingd-notify-\(UUID().uuidString.prefix(8))"
        address = abstract ? "@\(name)" : FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.descriptor = descriptor
        guard let (resolved, length) = NotifySocket.socketAddress(address) else { throw POSIXError(.ENAMETOOLONG) }
        var socketAddress = resolved
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard descriptor >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let messages = messages
        let signal = signal
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while signal.events.isEmpty {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count > 0 { messages.record(String(decoding: buffer[0..<count], as: UTF8.self)) }
            }
            close(descriptor)
        }.start()
    }

    deinit {
        signal.record(true)  // the receiving thread ends within its 100 ms receive timeout
        if !address.hasPrefix("@") { unlink(address) }
    }
}
