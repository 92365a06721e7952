// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// How many lines a decoder read, by result: for headingd's `headingd_source_lines_total`
/// metric. Plain counters in the decoder (no atomic per line); a source hands them on per read
/// or per batch. A CAN frame or NMEA 2000 message counts as a line.
package struct LineCounts: Sendable, Hashable {
    /// Lines that decoded: a heading, context (date, position, variation), or a sentence headingd
    /// does not use.
    package var ok: Int64 = 0
    /// Lines refused as malformed (cut short, overlong, a bad field, no checksum where one is required).
    package var malformed: Int64 = 0
    /// Lines whose checksum did not match, or was not two hexadecimal digits.
    package var checksum: Int64 = 0
    /// Lines with a value out of its range.
    package var outOfRange: Int64 = 0
    /// Input headingd cannot read (binary data, an unsupported format).
    package var unsupported: Int64 = 0

    package init() {}

    /// The counts by result label: `ok`, `malformed`, `checksum`, `out_of_range`, `unsupported`.
    package var byResult: [(result: String, count: Int64)] {
        [("ok", ok), ("malformed", malformed), ("checksum", checksum), ("out_of_range", outOfRange), ("unsupported", unsupported)]
    }

    /// Counts one line by what it produced.
    package mutating func count(_ report: HeadingSourceReport?) {
        guard case .fault(let fault) = report else {
            ok += 1
            return
        }
        switch Self.result(of: fault) {
        case "checksum": checksum += 1
        case "malformed": malformed += 1
        case "out_of_range": outOfRange += 1
        case "unsupported": unsupported += 1
        default: ok += 1  // a fault about the source, not the line
        }
    }

    /// The result label a fault gives its line (`malformed`, `checksum`, `out_of_range`,
    /// `unsupported`), or `nil` for a fault about the source rather than a line.
    package static func result(of fault: HeadingFault) -> String? {
        switch fault.code {
        case .malformedInput where fault.reason.hasPrefix("checksum") || fault.reason.contains(": checksum"): "checksum"
        case .malformedInput: "malformed"
        case .outOfRange: "out_of_range"
        case .unsupportedInput: "unsupported"
        default: nil
        }
    }
}

/// A source whose decoder counts its lines by result (NMEA 0183 streams, replays, gpsd).
package protocol LineCountingSource: AnyObject, Sendable {
    /// The lines read so far, by result.
    var lineCounts: LineCounts { get }
}
