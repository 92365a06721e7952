// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD
import HeadingPorts

/// One `--source`: which heading source headingd runs, and how its sensor is installed.
///
/// `KIND[?PARAMETERS]`, where KIND is `simulation`, `replay:PATH`, `gpsd://HOST:PORT[/DEVICE]`, or
/// a stream (`serial:///dev/ttyUSB0`, `tcp://HOST:PORT`, `udp://[ADDRESS]:PORT`, `stdin:`,
/// `exec:/PATH`, `socketcan://can0`), and the optional parameters, `&`-separated, are
/// `offset=DEGREES` (added to the sensor's heading), `smoothing=SECONDS` (time constant),
/// `deviation=HEADING:DEVIATION,…` (the compass's deviation card), and for streams and replays
/// `talker=HE,…` and `sentences=HDT,…` (which of the feed's sentences this source takes),
/// `device=ADDRESS|NAME` (which NMEA 2000 device) and the stream's own (`baud=`,
/// `no_data_timeout=`, `format=`).
struct SourceSpecification: Equatable, Sendable, CustomStringConvertible {
    /// Which source.
    enum Kind: Equatable, Sendable {
        /// The built-in simulation: no hardware needed.
        case simulation
        /// A recording to replay: NMEA 0183, gpsd JSON, or a gpsd regression log.
        case replay(path: String)
        /// A live gpsd: `gpsd://HOST:PORT[/DEVICE]`.
        case gpsd(GPSDEndpoint)
        /// NMEA 0183 straight from a serial line, a TCP feed, UDP or standard input, and which of
        /// its sentences this source takes.
        case stream(NMEAStreamEndpoint, NMEASentenceSelection)
        /// A magnetometer (and the accelerometer beside it) through Linux's IIO: `iio:` or `iio://DEVICE`.
        case iio(IIOEndpoint)

        /// Whether it is ``stream(_:_:)``.
        var isStream: Bool { if case .stream = self { true } else { false } }
    }

    /// Which of its sentences the source takes (streams and replays).
    private(set) var selection = NMEASentenceSelection.all

    /// Which source.
    let kind: Kind
    /// How its sensor is installed.
    let installation: HeadingProcessor.Installation
    /// Whether its deviation card is learned while headingd runs (`deviation=learn`), against a
    /// true source beside it.
    private(set) var learnsDeviation = false
    /// The parameters as given, after `?`, for ``description``.
    private let parameters: String?
    /// The text before the parameters, as given: a stream's URL.
    private var given = ""

    /// The built-in simulation with no installation parameters.
    static let simulation = SourceSpecification(kind: .simulation, installation: .init(), parameters: nil)

    /// The forms `--source` accepts, for `--help` and error messages.
    static let acceptedForms =
        "'simulation', 'replay:PATH', 'gpsd://HOST:PORT[/DEVICE]' (gpsd alone is gpsd://127.0.0.1:2947), "
        + "'serial:///dev/ttyUSB0[?baud=4800|…|auto]', 'tcp://HOST:PORT[?no_data_timeout=SECONDS]', 'udp://[ADDRESS]:PORT', 'stdin:' "
        + "'exec:/path/to/driver[?args=ARG,ARG]' (each with '&format=ubx|actisense|ydraw'), 'socketcan://INTERFACE', "
        + "or 'iio:[//DEVICE][?accel=DEVICE&gyro=DEVICE&rate=HZ&orientation=…]', "
        + "optionally followed by '?offset=DEGREES&smoothing=SECONDS&deviation=HEADING:DEVIATION,…|learn' "
        + "and, for replays and the last six, '&talker=HE,…&sentences=HDT,…&device=ADDRESS|NAME'"

    /// How the stream sources' URLs begin.
    static let streamPrefixes = ["serial:", "tcp://", "udp://", "stdin", "exec:", "socketcan:"]

    private init(kind: Kind, installation: HeadingProcessor.Installation, parameters: String?) {
        self.kind = kind
        self.installation = installation
        self.parameters = parameters
    }

    /// Parses a specification, or `nil` when it is not one (``parse(_:)`` says why).
    init?(argument: String) {
        guard case .success(let specification) = Self.parse(argument) else { return nil }
        self = specification
    }

    /// Parses a specification.
    /// - Parameter text: The text, such as `gpsd://127.0.0.1:2947/dev/ttyUSB0?offset=-1.5`.
    /// - Returns: The specification, or why the text is not one.
    static func parse(_ text: String) -> Result<SourceSpecification, ConfigurationError> {
        var base = Substring(text)
        var parameters: Substring?
        // Parameters follow the last '?' when they look like NAME=VALUE (a replay path may contain '?').
        if let mark = text.lastIndex(of: "?"), text[mark...].contains("=") {
            base = text[..<mark]
            parameters = text[text.index(after: mark)...]
        }
        var kind: Kind
        if base == "simulation" {
            kind = .simulation
        } else if base.hasPrefix("replay:"), base.count > "replay:".count {
            kind = .replay(path: String(base.dropFirst("replay:".count)))
        } else if base == "gpsd" {
            kind = .gpsd(.default)
        } else if base.hasPrefix("gpsd://") {
            do throws(GPSDEndpoint.ParseError) {
                kind = .gpsd(try GPSDEndpoint(parsing: String(base)))
            } catch {
                return .failure(ConfigurationError.invalid("'\(text.prefix(60))' is not a gpsd source: \(error.reason)"))
            }
        } else if base.hasPrefix("iio:") {
            kind = .iio(IIOEndpoint())  // parsed below, with its parameters
        } else if Self.streamPrefixes.contains(where: { base.hasPrefix($0) }) {
            kind = .stream(NMEAStreamEndpoint(transport: .standardInput), .all)  // parsed below, with its parameters
        } else {
            return .failure(ConfigurationError.invalid("'\(text.prefix(60))' is not a source: must be \(acceptedForms)"))
        }
        var offset = 0.0, smoothing = 0.0
        var table: DeviationTable?
        var learnsDeviation = false
        var talkers: [String]?, sentences: [String]?
        var device = NMEA2000DeviceSelection.firstHeard
        var streamParameters: [String] = []
        for parameter in (parameters ?? "").split(separator: "&") {
            let parts = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return .failure(ConfigurationError.invalid("source parameter '\(LogText.printable(parameter, limit: 40))' is not NAME=VALUE")) }
            let takesSelection: Bool = switch kind {
                case .stream, .replay: true
                case .simulation, .gpsd, .iio: false
            }
            if case .iio = kind, parts[0] != "offset", parts[0] != "smoothing", parts[0] != "deviation" {
                streamParameters.append(String(parameter))  // the IIO source's own
                continue
            }
            if takesSelection, parts[0] == "talker" || parts[0] == "sentences" || parts[0] == "device" || (parts[0] != "offset" && parts[0] != "smoothing" && parts[0] != "deviation" && kind.isStream) {
                switch parts[0] {
                case "talker":
                    let list = parts[1].split(separator: ",").map(String.init)
                    guard !list.isEmpty, list.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }) else {
                        return .failure(ConfigurationError.invalid("source parameter talker must be two-letter talker IDs separated by commas (HE,HC), not '\(parts[1].prefix(40))'"))
                    }
                    talkers = list
                case "sentences":
                    let list = parts[1].split(separator: ",").map(String.init)
                    guard !list.isEmpty, list.allSatisfy({ (2...16).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }) else {
                        return .failure(ConfigurationError.invalid("source parameter sentences must be sentence types separated by commas (HDT,THS), not '\(parts[1].prefix(40))'"))
                    }
                    sentences = list
                case "device":
                    guard let chosen = NMEA2000DeviceSelection(parsing: parts[1]) else {
                        return .failure(ConfigurationError.invalid("source parameter device must be an NMEA 2000 address (0 to 253) or a device's 64-bit NAME, in decimal or 0x hex, not '\(parts[1].prefix(40))'"))
                    }
                    device = chosen
                default:
                    streamParameters.append(String(parameter))
                }
                continue
            }
            switch parts[0] {
            case "offset":
                guard let value = Double(parts[1]), value.isFinite, abs(value) <= 180 else {
                    return .failure(ConfigurationError.invalid("source parameter offset must be between -180 and 180 degrees, not '\(LogText.printable(parts[1], limit: 20))'"))
                }
                offset = value
            case "smoothing":
                guard let value = Double(parts[1]), value.isFinite, (0...3600).contains(value) else {
                    return .failure(ConfigurationError.invalid("source parameter smoothing must be between 0 and 3600 seconds, not '\(LogText.printable(parts[1], limit: 20))'"))
                }
                smoothing = value
            case "deviation" where parts[1] == "learn":
                learnsDeviation = true
            case "deviation":
                var entries: [(heading: Double, deviation: Double)] = []
                for point in parts[1].split(separator: ",") {
                    let pair = point.split(separator: ":").map { Double($0) }
                    guard pair.count == 2, let heading = pair[0], let deviation = pair[1] else {
                        return .failure(ConfigurationError.invalid("deviation point '\(LogText.printable(point, limit: 40))' is not HEADING:DEVIATION"))
                    }
                    entries.append((heading, deviation))
                }
                do {
                    table = try DeviationTable(entries)
                } catch {
                    return .failure(ConfigurationError.invalid("source parameter deviation: \(error)"))
                }
            default:
                return .failure(ConfigurationError.invalid("unknown source parameter '\(LogText.printable(parts[0], limit: 40))': expected offset, smoothing or deviation"))
            }
        }
        if case .stream = kind {
            let url = String(base) + (streamParameters.isEmpty ? "" : "?" + streamParameters.joined(separator: "&"))
            do throws(NMEAStreamEndpoint.ParseError) {
                let endpoint = try NMEAStreamEndpoint(parsing: url)
                kind = .stream(endpoint, NMEASentenceSelection(talkers: talkers ?? [], sentences: sentences ?? [], device: device))
            } catch {
                return .failure(ConfigurationError.invalid("'\(text.prefix(60))' is not a stream source: \(error.reason)"))
            }
        }
        if case .iio = kind {
            let url = String(base) + (streamParameters.isEmpty ? "" : "?" + streamParameters.joined(separator: "&"))
            do throws(IIOEndpoint.ParseError) {
                kind = .iio(try IIOEndpoint(parsing: url))
            } catch {
                return .failure(ConfigurationError.invalid("'\(text.prefix(60))' is not an IIO source: \(error.reason)"))
            }
        }
        var specification = SourceSpecification(
            kind: kind,
            installation: .init(mountingOffset: offset, smoothingTimeConstant: smoothing, deviationTable: table),
            parameters: parameters.map(String.init)
        )
        specification.given = String(base)
        specification.learnsDeviation = learnsDeviation
        specification.selection = NMEASentenceSelection(talkers: talkers ?? [], sentences: sentences ?? [], device: device)
        return .success(specification)
    }

    var description: String {
        let base: String =
            switch kind {
            case .simulation: "simulation"
            case .replay(let path): "replay:\(path)"
            case .gpsd(let endpoint): endpoint.description
            case .stream, .iio: given
            }
        return base + (parameters.map { "?\($0)" } ?? "")
    }
}
