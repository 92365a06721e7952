// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import HeadingPorts

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
    ///
    /// Never blocks for longer than `wait`: a datagram socket's receiver queue holds only
    /// `net.unix.max_dgram_qlen` messages (10 by default), and a manager that stops reading it
    /// would otherwise stall the caller for good — the heading path, which sends `STATUS=` at a
    /// fault, or the shutdown, which sends `STOPPING=1` (found by the reload soak, whose notify
    /// socket went unread for a minute: the shutdown then hung until the stop deadline).
    /// - Parameters:
    ///   - message: Such as `READY=1`.
    ///   - wait: How long to wait for room in a full queue: `.zero` (the default) drops the
    ///     message at once, for what the next tick sends again (`WATCHDOG=1`, `STATUS=`).
    @discardableResult
    func send(_ message: String, waitingAtMost wait: Duration = .zero) -> Bool {
        guard let (socketAddress, length) = Self.socketAddress(path) else { return false }
        var address = socketAddress
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        // Connected, so that poll(2) can tell when the receiver's queue has room.
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        guard connected == 0 else { return false }
        let deadline = ContinuousClock.now.advanced(by: wait)
        while true {
            let sent = message.withCString { text in Glibc.send(descriptor, text, strlen(text), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent >= 0 { return true }
            guard errno == EAGAIN || errno == EINTR else { return false }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&request, 1, remaining.pollMilliseconds)
        }
    }

    /// How long the messages systemd acts on (`READY=1`, `RELOADING=1`, `STOPPING=1`) wait for
    /// room in a full queue before they are given up.
    static let essentialWait: Duration = .milliseconds(500)

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
