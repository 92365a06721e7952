// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingPorts

/// A whole scan: every candidate's finding, and the heading sources ranked best first; written
/// for people, as JSON (`--json`) and as a configuration file (`--write-config`).
struct ScanReport: Sendable, Codable, Equatable {
    /// The JSON's shape; changed only with a new number.
    var version = 1
    /// When the scan ended.
    var date: Date
    /// Seconds each candidate was listened to once open.
    var seconds: Double
    /// Every candidate, in the order listened to.
    var candidates: [ScanFinding]
    /// Every heading source found, best first: gyro, dual-antenna GNSS, fluxgate, IMU, course over
    /// ground; within a kind, the most headings a second first.
    var sources: [ScanSource]

    /// Makes a report, ranking the findings' sources.
    init(date: Date, seconds: Double, candidates: [ScanFinding]) {
        self.date = date
        self.seconds = seconds
        self.candidates = candidates
        var seen = Set<String>()
        sources = candidates.flatMap(\.sources)
            .enumerated()
            .sorted { ($0.element.kind, -$0.element.rate, $0.offset) < ($1.element.kind, -$1.element.rate, $1.offset) }
            .map(\.element)
            .filter { seen.insert($0.url).inserted }
    }

    /// The report for people.
    var text: String {
        var lines: [String] = []
        for finding in candidates {
            var head = "\(finding.candidate): "
            switch finding.outcome {
            case .heard:
                head += "heard"
                if let baud = finding.baud { head += " at \(baud) baud" }
                if let format = finding.format { head += " (\(Self.formatWords[format] ?? format))" }
            case .silent: head += "silent" + (finding.problem.map { " (\(LogText.printable($0, limit: 400)))" } ?? "")
            case .unavailable: head += "not available: " + LogText.printable(finding.problem ?? "", limit: 400)
            case .permissionDenied: head += "permission denied: " + LogText.printable(finding.problem ?? "", limit: 400)
            }
            lines.append(head)
            if finding.outcome == .heard, let problem = finding.problem { lines.append("  then: \(LogText.printable(problem, limit: 400))") }
            if let fix = finding.fix { lines.append("  fix: \(fix)") }
            for line in finding.heardLines { lines.append("  \(line)") }
            for source in finding.sources {
                lines.append("  → \(source.kind.words): \(source.url)  (\(source.heard))")
            }
        }
        lines.append("")
        if sources.isEmpty {
            lines.append("No heading source found.")
        } else {
            lines.append("Heading sources, best first:")
            for (index, source) in sources.enumerated() {
                lines.append("  \(index + 1). \(source.kind.words.padding(toLength: 24, withPad: " ", startingAt: 0)) \(source.url)")
            }
            lines.append("Write them to a configuration with --write-config PATH; check it with headingd --check-config PATH.")
        }
        return lines.joined(separator: "\n")
    }

    /// Words for the formats.
    static let formatWords = [
        "nmea0183": "NMEA 0183", "actisense": "NMEA 2000 through an Actisense NGT-1", "ydraw": "NMEA 2000 as YD RAW",
        "candump": "CAN frames as candump text", "socketcan": "NMEA 2000 on SocketCAN", "gpsd": "gpsd", "iio": "Linux IIO", "ubx": "u-blox UBX",
    ]

    /// The report as JSON: stable keys, sorted.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// A configuration file headingd reads (`--check-config` accepts it): the sources best first,
    /// each with a comment saying what was heard, JSON lines for the journal, and the status page.
    var configuration: String {
        var lines = [
            "# headingd configuration written by headingd scan on \(ISO8601DateFormatter().string(from: date)).",
            "# Sources best first: headings come from the best healthy one, the next when it fails.",
            "# Check it with: headingd --check-config PATH. Under the shipped unit some need a drop-in",
            "# (/usr/share/headingd/drop-ins/, copied to /etc/systemd/system/headingd.service.d/): named below.",
            "source = [",
        ]
        for source in sources {
            lines.append("    # " + Self.printable("\(source.kind.words): \(source.heard)" + (source.dropIn.map { "; drop-in \($0)" } ?? "")))
            lines.append("    \(Self.quoted(source.url)),")
        }
        lines.append("]")
        lines.append("")
        lines.append("# One JSON object per heading on standard output (the journal, under systemd).")
        lines.append("format = \"json\"")
        lines.append("")
        lines.append("# The status page: the heading, each source and the active faults, at http://127.0.0.1:9947/")
        lines.append("# (the address: [http] listen).")
        lines.append("[status]")
        lines.append("enabled = true")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text from peers made safe for a terminal and a comment: control characters become `?`.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) ? "?" : $0 }))
    }

    /// A TOML basic string.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += String(format: "\\u%04X", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
