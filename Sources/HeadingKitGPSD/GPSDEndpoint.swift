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

    /// Parses `gpsd://HOST[:PORT][/DEVICE]`; `HOST` may be `[IPv6]`. Returns `nil` for anything else.
    /// - Parameter text: The URL, such as `gpsd://127.0.0.1:2947/dev/ttyUSB0`.
    public init?(_ text: String) {
        guard text.hasPrefix("gpsd://") else { return nil }
        var rest = Substring(text.dropFirst("gpsd://".count))
        var device: String?
        if let slash = rest.firstIndex(of: "/") {
            device = String(rest[slash...])
            rest = rest[..<slash]
            if device == "/" { device = nil }
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        if host.isEmpty { host = "127.0.0.1" }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:".contains($0)) }) else { return nil }
        var port: UInt16 = 2947
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber),
                let number = UInt16(portText), number > 0
            else { return nil }
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
