// headingd
// SPDX-License-Identifier: Apache-2.0

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
}
