// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

/// Turns headings into the lines headingd prints: readable text, or one JSON object per line.
struct HeadingLineFormatter: Sendable {
    /// The output format.
    let format: OutputFormat

    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The line for one heading.
    ///
    /// JSON always has `trueHeading`, `magneticHeading`, `accuracy` (each `null` when unknown),
    /// `timestamp` (ISO 8601, UTC), `source` and `kind`; `pitch`, `roll`, `magneticVariation` and
    /// `deviation` appear when known.
    /// - Parameter heading: The heading.
    /// - Returns: The line, without a newline.
    func line(for heading: Heading) -> String {
        let timestamp = heading.timestamp.formatted(Self.timestampStyle)
        switch format {
        case .json:
            var json = "{\"trueHeading\":\(Self.number(heading.trueHeading))"
            json += ",\"magneticHeading\":\(Self.number(heading.magneticHeading))"
            json += ",\"accuracy\":\(Self.number(heading.headingAccuracy))"
            json += ",\"timestamp\":\"\(timestamp)\""
            json += ",\"source\":" + Self.quoted(heading.source)
            json += ",\"kind\":" + Self.quoted(heading.kind.rawValue)
            for (key, value) in [
                ("pitch", heading.pitch), ("roll", heading.roll),
                ("magneticVariation", heading.magneticVariation), ("deviation", heading.deviation),
            ] {
                if let value, value.isFinite { json += ",\"\(key)\":\(value)" }
            }
            return json + "}"
        case .text:
            var text = "\(timestamp) \(heading.source)"
            text += " true \(Self.degrees(heading.trueHeading))"
            text += " magnetic \(Self.degrees(heading.magneticHeading))"
            if let accuracy = heading.headingAccuracy { text += " ±\(Self.degrees(accuracy))" }
            return text + " (\(heading.kind))"
        }
    }

    /// A JSON number, or `null` for `nil` and for values JSON cannot carry (NaN, infinity).
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return "\(value)"
    }

    /// Degrees with two decimals and a degree sign, or `unknown`.
    static func degrees(_ value: Double?) -> String {
        guard let value else { return "unknown" }
        return String(format: "%.2f°", value)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
