// headingd — HeadingKitGPSD
// SPDX-License-Identifier: Apache-2.0

/// Where a gpsd listens, and optionally the one device to watch: `gpsd://HOST:PORT[/DEVICE]`.
public struct GPSDEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// gpsd's address: a host name, an IPv4 address, or an IPv6 address without brackets.
    public var host: String
    /// gpsd's TCP port.
    public var port: UInt16
    /// The device to watch, such as `/dev/ttyUSB0`; `nil` watches every device gpsd has.
    public var device: String?

    /// gpsd's default: 127.0.0.1, port 2947, every device.
    public static let `default` = GPSDEndpoint(host: "127.0.0.1", port: 2947)

    /// Creates an endpoint.
    /// - Parameters:
    ///   - host: gpsd's address.
    ///   - port: gpsd's TCP port. Default 2947.
    ///   - device: The device to watch, or `nil` for every device.
    public init(host: String, port: UInt16 = 2947, device: String? = nil) {
        self.host = host
        self.port = port
        self.device = device
    }

    /// Why a text is not a gpsd URL.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason, such as `the port must be a number from 1 to 65535`.
        public let reason: String
        /// The reason.
        public var description: String { reason }
    }

    /// Parses `gpsd://HOST[:PORT][/DEVICE]`; `HOST` may be `[IPv6]`. Returns `nil` for anything
    /// else; ``init(parsing:)`` says why.
    /// - Parameter text: The URL, such as `gpsd://127.0.0.1:2947/dev/ttyUSB0`.
    public init?(_ text: String) {
        guard let endpoint = try? GPSDEndpoint(parsing: text) else { return nil }
        self = endpoint
    }

    /// Parses `gpsd://HOST[:PORT][/DEVICE]`; `HOST` may be `[IPv6]`, and an empty host is
    /// 127.0.0.1 when a port follows (`gpsd://:2948`).
    ///
    /// A path with no host, `gpsd:///run/gpsd.sock`, is refused: gpsd's Unix socket is its control
    /// socket, not for clients, and read as a URL it would quietly mean 127.0.0.1:2947 watching a
    /// device named `/run/gpsd.sock`.
    /// - Parameter text: The URL, such as `gpsd://127.0.0.1:2947/dev/ttyUSB0`.
    /// - Throws: ``ParseError`` saying what is wrong.
    public init(parsing text: String) throws(ParseError) {
        guard text.hasPrefix("gpsd://") else { throw ParseError(reason: "a gpsd URL starts with gpsd://") }
        var rest = Substring(text.dropFirst("gpsd://".count))
        if rest.hasPrefix("/") {
            throw ParseError(
                reason: "gpsd:///PATH names a Unix socket, and gpsd's is its control socket, not for clients: "
                    + "give gpsd's TCP address, gpsd://HOST[:PORT][/DEVICE] (gpsd://127.0.0.1:2947 by default)"
            )
        }
        var device: String?
        if let slash = rest.firstIndex(of: "/") {
            device = String(rest[slash...])
            rest = rest[..<slash]
            if device == "/" { device = nil }
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw ParseError(reason: "an IPv6 address must end with ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ParseError(reason: "only :PORT may follow an IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        if host.isEmpty { host = "127.0.0.1" }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:".contains($0)) }) else {
            throw ParseError(reason: "the host may hold only letters, digits, '.', '-', '_' and ':'")
        }
        var port: UInt16 = 2947
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber),
                let number = UInt16(portText), number > 0
            else { throw ParseError(reason: "the port must be a number from 1 to 65535") }
            port = number
        }
        self.init(host: String(host), port: port, device: device)
    }

    /// The URL form, such as `gpsd://127.0.0.1:2947/dev/ttyUSB0`.
    public var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "gpsd://\(host):\(port)\(device ?? "")"
    }
}
