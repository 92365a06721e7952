// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD

/// One `--source`: which heading source headingd runs, and how its sensor is installed.
///
/// `KIND[?PARAMETERS]`, where KIND is `simulation`, `replay:PATH` or `gpsd://HOST:PORT[/DEVICE]`
/// and the optional parameters, `&`-separated, are `offset=DEGREES` (added to the sensor's
/// heading), `smoothing=SECONDS` (time constant) and `deviation=HEADING:DEVIATION,…` (the
/// compass's deviation card).
struct SourceSpecification: Equatable, Sendable, CustomStringConvertible {
    /// Which source.
    enum Kind: Equatable, Sendable {
        /// The built-in simulation: no hardware needed.
        case simulation
        /// A recording to replay: NMEA 0183, gpsd JSON, or a gpsd regression log.
        case replay(path: String)
        /// A live gpsd: `gpsd://HOST:PORT[/DEVICE]`.
        case gpsd(GPSDEndpoint)
    }

    /// Which source.
    let kind: Kind
    /// How its sensor is installed.
    let installation: HeadingProcessor.Installation
    /// The parameters as given, after `?`, for ``description``.
    private let parameters: String?

    /// The built-in simulation with no installation parameters.
    static let simulation = SourceSpecification(kind: .simulation, installation: .init(), parameters: nil)

    /// The forms `--source` accepts, for `--help` and error messages.
    static let acceptedForms =
        "'simulation', 'replay:PATH' or 'gpsd://HOST:PORT[/DEVICE]' (gpsd alone is gpsd://127.0.0.1:2947), "
        + "optionally followed by '?offset=DEGREES&smoothing=SECONDS&deviation=HEADING:DEVIATION,…'"

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
    static func parse(_ text: String) -> Result<SourceSpecification, SettingError> {
        var base = Substring(text)
        var parameters: Substring?
        // Parameters follow the last '?' when they look like NAME=VALUE (a replay path may contain '?').
        if let mark = text.lastIndex(of: "?"), text[mark...].contains("=") {
            base = text[..<mark]
            parameters = text[text.index(after: mark)...]
        }
        let kind: Kind
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
                return .failure(SettingError("'\(text.prefix(60))' is not a gpsd source: \(error.reason)"))
            }
        } else {
            return .failure(SettingError("'\(text.prefix(60))' is not a source: must be \(acceptedForms)"))
        }
        var offset = 0.0, smoothing = 0.0
        var table: DeviationTable?
        for parameter in (parameters ?? "").split(separator: "&") {
            let parts = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return .failure(SettingError("source parameter '\(parameter)' is not NAME=VALUE")) }
            switch parts[0] {
            case "offset":
                guard let value = Double(parts[1]), value.isFinite, abs(value) <= 180 else {
                    return .failure(SettingError("source parameter offset must be between -180 and 180 degrees, not '\(parts[1])'"))
                }
                offset = value
            case "smoothing":
                guard let value = Double(parts[1]), value.isFinite, (0...3600).contains(value) else {
                    return .failure(SettingError("source parameter smoothing must be between 0 and 3600 seconds, not '\(parts[1])'"))
                }
                smoothing = value
            case "deviation":
                var entries: [(heading: Double, deviation: Double)] = []
                for point in parts[1].split(separator: ",") {
                    let pair = point.split(separator: ":").map { Double($0) }
                    guard pair.count == 2, let heading = pair[0], let deviation = pair[1] else {
                        return .failure(SettingError("deviation point '\(point)' is not HEADING:DEVIATION"))
                    }
                    entries.append((heading, deviation))
                }
                do {
                    table = try DeviationTable(entries)
                } catch {
                    return .failure(SettingError("source parameter deviation: \(error)"))
                }
            default:
                return .failure(SettingError("unknown source parameter '\(parts[0])': expected offset, smoothing or deviation"))
            }
        }
        return .success(
            SourceSpecification(
                kind: kind,
                installation: .init(mountingOffset: offset, smoothingTimeConstant: smoothing, deviationTable: table),
                parameters: parameters.map(String.init)
            )
        )
    }

    var description: String {
        let base: String =
            switch kind {
            case .simulation: "simulation"
            case .replay(let path): "replay:\(path)"
            case .gpsd(let endpoint): endpoint.description
            }
        return base + (parameters.map { "?\($0)" } ?? "")
    }
}
