// headingd
// SPDX-License-Identifier: Apache-2.0

import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Where a server output listens: `HOST:PORT`, with an IPv6 host in brackets (`[::1]:10110`).
struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address to bind: an IPv4 or IPv6 address, or a host name.
    let host: String
    /// The TCP port, 1 to 65535.
    let port: Int

    /// Parses `HOST:PORT`; `nil` for anything else.
    /// - Parameter text: Such as `127.0.0.1:10110` or `[::1]:10110`.
    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = Substring(text[..<colon])
        let portText = text[text.index(after: colon)...]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:".contains($0)) }),
            !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(portText), (1...65535).contains(port)
        else { return nil }
        self.host = String(host)
        self.port = port
    }

    /// Whether the host is a loopback address (127.0.0.0/8, `::1`, `localhost`).
    var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" || host == "localhost" }

    /// `HOST:PORT`, with an IPv6 host in brackets.
    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether the address can be listened on, checked before the pipeline runs so that one that
    /// cannot ends headingd before any heading flows: a socket of its own is bound to it (with
    /// `SO_REUSEADDR`, as the listener will be) and closed, without listening — a listening probe
    /// accepted a client that connected in that moment, and the client hung there unserved.
    /// - Returns: The system's reason when it cannot be, else `nil`.
    func bindProbe() -> String? {
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            return "\(error)"
        }
        let descriptor = socket(Int32(address.protocol.rawValue), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockAddr { Glibc.bind(descriptor, $0, socklen_t($1)) }
        return bound == 0 ? nil : String(cString: strerror(errno))
    }
}
