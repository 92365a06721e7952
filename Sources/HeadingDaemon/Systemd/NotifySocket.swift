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
        guard let (socketAddress, length) = Self.socketAddress(path) else { return false }
        var address = socketAddress
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let sent = message.withCString { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, text, strlen(text), Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent >= 0
    }

    /// The `AF_UNIX` address for `path` (`@name` in the abstract namespace) and its length, or
    /// `nil` when the path is too long for one.
    static func socketAddress(_ path: String) -> (sockaddr_un, socklen_t)? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        // An abstract name is exactly its bytes; a path ends with its NUL.
        return (address, socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1)))
    }
}
