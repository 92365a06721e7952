// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Where a stream of NMEA 0183 comes from: a serial line, a TCP server (a multiplexer or a WiFi
/// gateway), UDP datagrams, or standard input.
///
/// Written as a URL: `serial:///dev/ttyUSB0?baud=4800`, `tcp://HOST:PORT`, `udp://:10110`,
/// `udp://ADDRESS:PORT` (a multicast group address joins the group), `stdin:` or
/// `exec:/path/to/driver?args=ARG,ARG` (a driver program's standard output).
public struct NMEAStreamEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// How the bytes arrive.
    public enum Transport: Sendable, Hashable {
        /// A serial line (`/dev/ttyUSB0`, `/dev/ttyACM0`, a pty), set raw 8N1 at a baud rate.
        case serial(path: String, baud: SerialBaud)
        /// A TCP server this source connects to, as a client.
        case tcp(host: String, port: UInt16)
        /// UDP datagrams to a port of this machine; `address` is the local address or multicast
        /// group to listen on, `nil` for every address.
        case udp(address: String?, port: UInt16)
        /// The process's standard input.
        case standardInput
        /// The standard output of a driver program headingd starts, watches and restarts.
        case childProcess(path: String, arguments: [String])
        /// A SocketCAN interface (`can0`), NMEA 2000 CAN frames read listen-only.
        case socketCAN(interface: String)
    }

    /// A serial line's speed.
    public enum SerialBaud: Sendable, Hashable, CustomStringConvertible {
        /// This many bits a second: one of ``NMEAStreamEndpoint/baudRates``.
        case fixed(Int)
        /// Each of ``NMEAStreamEndpoint/baudRates`` in turn (4800 first, then 38400) until
        /// sentences with a right checksum arrive.
        case automatic

        /// `4800` or `auto`.
        public var description: String {
            switch self {
            case .fixed(let rate): "\(rate)"
            case .automatic: "auto"
            }
        }
    }

    /// The baud rates a serial line may be set to, in the order `baud=auto` tries them: NMEA
    /// 0183's own 4800 first, then NMEA 0183 HS's 38400, then the rest.
    public static let baudRates = [4800, 38400, 9600, 19200, 57600, 115200]

    /// How the bytes are framed.
    public enum Framing: String, Sendable, Hashable {
        /// NMEA 0183 lines (and Unicore's ASCII logs).
        case nmea
        /// u-blox UBX frames interleaved with NMEA 0183 lines, as a u-blox receiver's port sends
        /// them: `format=ubx`. UBX-NAV-RELPOSNED gives the moving-base heading.
        case ubx
        /// An Actisense NGT-1's binary frames (NMEA 2000 messages): `format=actisense`. The
        /// NGT-1 is sent its start-up message at open and every 20 s, so that it passes every PGN.
        case actisense
        /// Yacht Devices' RAW text (YDWG-02, YDEN-02, YDNU-02), one CAN frame a line: `format=ydraw`.
        /// Lines, as for NMEA 0183: a feed may carry both.
        case ydraw
        /// SocketCAN's frames: the framing of a `socketcan://` endpoint, never given.
        case socketCAN = "socketcan"

        /// Whether the feed carries NMEA 2000.
        public var isNMEA2000: Bool { self == .actisense || self == .ydraw || self == .socketCAN }
    }

    /// How the bytes arrive.
    public var transport: Transport
    /// How the bytes are framed. Default NMEA 0183.
    public var framing: Framing
    /// For TCP: how long a connection may bring no byte at all before it is called dead and made
    /// again (TCP's own keepalive takes hours). `nil` never. Default 10 s.
    public var noDataTimeout: Duration?

    /// Creates an endpoint.
    /// - Parameters:
    ///   - transport: How the bytes arrive.
    ///   - noDataTimeout: For TCP, how long without a byte before reconnecting; `nil` never. Default 10 s.
    ///   - framing: How the bytes are framed. Default NMEA 0183.
    public init(transport: Transport, noDataTimeout: Duration? = .seconds(10), framing: Framing = .nmea) {
        self.transport = transport
        self.noDataTimeout = noDataTimeout
        self.framing = framing
    }

    /// Why a text is not a stream URL.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason, such as `the port must be a number from 1 to 65535`.
        public let reason: String
        /// The reason.
        public var description: String { reason }
    }

    /// The forms ``init(parsing:)`` accepts, for help texts and errors.
    public static let acceptedForms =
        "'serial:///dev/ttyUSB0[?baud=4800|…|auto]', 'tcp://HOST:PORT[?no_data_timeout=SECONDS]', 'udp://[ADDRESS]:PORT', 'stdin:', "
        + "'exec:/path/to/driver[?args=ARG,ARG]' (each with '&format=ubx|actisense|ydraw') or 'socketcan://INTERFACE'"

    /// Parses a stream URL (see ``acceptedForms``), with its own parameters only: `baud` for a
    /// serial line, `no_data_timeout` (seconds, 0 for never) for TCP, `args` for a driver (its
    /// arguments separated by commas, each percent-decoded: `%2C` is a comma, `%20` a space), and
    /// `format=ubx` or `format=actisense` for every transport but UDP (``Framing/ubx``,
    /// ``Framing/actisense``), `format=ydraw` for every one (``Framing/ydraw``). `socketcan://can0`
    /// takes none.
    /// - Parameter text: The URL, such as `serial:///dev/ttyUSB0?baud=38400`.
    /// - Throws: ``ParseError`` saying what is wrong.
    public init(parsing text: String) throws(ParseError) {
        var base = Substring(text)
        var parameters: [(name: Substring, value: Substring)] = []
        if let mark = text.firstIndex(of: "?") {
            base = text[..<mark]
            for parameter in text[text.index(after: mark)...].split(separator: "&") {
                let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw ParseError(reason: "parameter '\(parameter.prefix(40))' is not NAME=VALUE")
                }
                parameters.append((parts[0], parts[1]))
            }
        }
        var noDataTimeout: Duration? = .seconds(10)
        var framing = Framing.nmea
        if let index = parameters.firstIndex(where: { $0.name == "format" }) {
            guard let chosen = Framing(rawValue: String(parameters[index].value)), chosen != .socketCAN else {
                throw ParseError(reason: "format must be nmea, ubx, actisense or ydraw, not '\(parameters[index].value.prefix(20))'")
            }
            guard !base.hasPrefix("udp:") || chosen == .nmea || chosen == .ydraw else {
                throw ParseError(reason: "format=\(chosen.rawValue) is for a byte stream, not UDP datagrams")
            }
            framing = chosen
            parameters.remove(at: index)
        }
        if base.hasPrefix("socketcan:") {
            var interface = base.dropFirst("socketcan:".count)
            if interface.hasPrefix("//") { interface = interface.dropFirst(2) }
            guard (1...15).contains(interface.utf8.count),
                interface.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") })
            else {
                throw ParseError(reason: "a SocketCAN interface is socketcan://NAME (can0, vcan0: up to 15 letters, digits, '-', '_', '.')")
            }
            guard parameters.isEmpty, framing == .nmea else {
                throw ParseError(reason: "socketcan:// takes no parameter of its own (only device=, to choose the device)")
            }
            self.init(transport: .socketCAN(interface: String(interface)), noDataTimeout: nil, framing: .socketCAN)
            return
        }
        if base.hasPrefix("serial:") {
            var path = base.dropFirst("serial:".count)
            if path.hasPrefix("//") { path = path.dropFirst(2) }
            guard path.hasPrefix("/"), path.count > 1 else {
                throw ParseError(reason: "a serial line is serial:///dev/NAME (an absolute device path)")
            }
            guard !path.utf8.contains(0) else { throw ParseError(reason: "the device path contains a NUL byte") }
            // An NGT-1 runs at 115200 baud: its default; everything else NMEA 0183's 4800.
            var baud = SerialBaud.fixed(framing == .actisense ? 115_200 : 4800)
            for (name, value) in parameters {
                guard name == "baud" else { throw ParseError(reason: "unknown serial parameter '\(name.prefix(40))': expected baud") }
                if value == "auto" {
                    baud = .automatic
                } else if let rate = Int(value), Self.baudRates.contains(rate) {
                    baud = .fixed(rate)
                } else {
                    throw ParseError(reason: "baud must be auto or one of \(Self.baudRates.map(String.init).joined(separator: ", ")), not '\(value.prefix(20))'")
                }
            }
            if baud == .automatic, framing != .nmea {
                throw ParseError(reason: "baud=auto listens for NMEA 0183 sentences: give format=\(framing.rawValue) its baud rate (an NGT-1's is 115200)")
            }
            self.init(transport: .serial(path: String(path), baud: baud), noDataTimeout: nil, framing: framing)
            return
        }
        if base.hasPrefix("exec:") {
            let path = String(base.dropFirst("exec:".count))
            guard path.hasPrefix("/"), path.count > 1, !path.utf8.contains(0) else {
                throw ParseError(reason: "a driver is exec:/ABSOLUTE/PATH (headingd runs it without a shell)")
            }
            var arguments: [String] = []
            for (name, value) in parameters {
                guard name == "args" else { throw ParseError(reason: "unknown exec parameter '\(name.prefix(40))': expected args") }
                for argument in value.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let decoded = argument.removingPercentEncoding, !decoded.utf8.contains(0) else {
                        throw ParseError(reason: "argument '\(argument.prefix(40))' is not percent-encoded text")
                    }
                    arguments.append(decoded)
                }
            }
            self.init(transport: .childProcess(path: path, arguments: arguments), noDataTimeout: nil, framing: framing)
            return
        }
        if base == "stdin:" || base == "stdin" {
            guard parameters.isEmpty else { throw ParseError(reason: "stdin: takes no parameters") }
            self.init(transport: .standardInput, noDataTimeout: nil, framing: framing)
            return
        }
        let isTCP = base.hasPrefix("tcp://")
        guard isTCP || base.hasPrefix("udp://") else {
            throw ParseError(reason: "a stream is \(Self.acceptedForms)")
        }
        let (host, port) = try Self.hostAndPort(base.dropFirst("tcp://".count))
        if isTCP {
            guard let host else { throw ParseError(reason: "a TCP feed needs a host: tcp://HOST:PORT") }
            for (name, value) in parameters {
                guard name == "no_data_timeout" else {
                    throw ParseError(reason: "unknown TCP parameter '\(name.prefix(40))': expected no_data_timeout")
                }
                guard let seconds = Double(value), seconds.isFinite, (0...86_400).contains(seconds) else {
                    throw ParseError(reason: "no_data_timeout must be between 0 (never) and 86400 seconds, not '\(value.prefix(20))'")
                }
                noDataTimeout = seconds == 0 ? nil : .milliseconds(Int64((seconds * 1000).rounded()))
            }
            self.init(transport: .tcp(host: host, port: port), noDataTimeout: noDataTimeout, framing: framing)
        } else {
            guard parameters.isEmpty else {
                throw ParseError(reason: "unknown UDP parameter '\(parameters[0].name.prefix(40))': UDP takes none")
            }
            self.init(transport: .udp(address: host, port: port), noDataTimeout: nil, framing: framing)
        }
    }

    /// `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (no host).
    private static func hostAndPort(_ text: Substring) throws(ParseError) -> (String?, UInt16) {
        var host: Substring
        var portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw ParseError(reason: "an IPv6 address in brackets lacks its ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw ParseError(reason: "a port must follow the address: [ADDRESS]:PORT") }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw ParseError(reason: "a port is needed: HOST:PORT") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        if portText.hasSuffix("/") { portText = portText.dropLast() }
        guard let port = UInt16(portText), port > 0 else {
            throw ParseError(reason: "the port must be a number from 1 to 65535, not '\(portText.prefix(20))'")
        }
        guard !host.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == " " || $0 == "\0" }) else {
            throw ParseError(reason: "'\(host.prefix(60))' is not a host name or address")
        }
        return (host.isEmpty ? nil : String(host), port)
    }

    /// The URL, such as `tcp://192.168.1.10:10110` or `serial:///dev/ttyUSB0?baud=4800`.
    public var description: String {
        func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
        switch transport {
        case .serial(let path, let baud): return "serial://\(path)?baud=\(baud)" + (framing == .nmea ? "" : "&format=\(framing.rawValue)")
        case .tcp(let host, let port): return "tcp://\(bracketed(host)):\(port)" + (framing == .nmea ? "" : "?format=\(framing.rawValue)")
        case .udp(let address, let port): return "udp://\(address.map(bracketed) ?? ""):\(port)" + (framing == .nmea ? "" : "?format=\(framing.rawValue)")
        case .standardInput: return "stdin:" + (framing == .nmea ? "" : "?format=\(framing.rawValue)")
        case .socketCAN(let interface): return "socketcan://\(interface)"
        case .childProcess(let path, let arguments):
            let format = framing == .nmea ? "" : "format=\(framing.rawValue)"
            guard !arguments.isEmpty else { return "exec:\(path)" + (format.isEmpty ? "" : "?" + format) }
            let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: ",&=?"))
            return "exec:\(path)?args=" + arguments.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: ",")
                + (format.isEmpty ? "" : "&" + format)
        }
    }
}
