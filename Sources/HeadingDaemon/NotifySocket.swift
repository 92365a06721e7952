// headingd
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// systemd's notification socket (`$NOTIFY_SOCKET`): one datagram per message, such as
/// `READY=1`. The protocol is documented as stable (sd_notify(3)), so it is spoken directly.
/// A path starting with `@` is in the abstract namespace.
struct NotifySocket: Sendable {
    /// The socket's address as `$NOTIFY_SOCKET` gives it.
    let path: String

    /// The socket from the environment, or `nil` when headingd does not run under systemd's
    /// notify protocol.
    static func fromEnvironment() -> NotifySocket? {
        guard let path = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !path.isEmpty,
            path.hasPrefix("/") || path.hasPrefix("@")
        else { return nil }
        return NotifySocket(path: path)
    }

    /// Sends one message; returns whether it was sent. Failures are not fatal: systemd may be gone.
    @discardableResult
    func send(_ message: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(path.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        let sent = message.withCString { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, text, strlen(text), Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent >= 0
    }
}
