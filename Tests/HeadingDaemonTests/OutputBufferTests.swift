// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

@testable import HeadingDaemon

/// The batched output formats each line straight into its block: what reaches the file is the
/// formatter's lines, in order, whole, across block boundaries and for a line too long for the
/// room a block keeps.
struct OutputBufferTests {
    private static func heading(_ index: Int, source: String) -> Heading {
        Heading(
            trueHeading: Double(index % 360) + 0.25, magneticHeading: nil, headingAccuracy: 0.5,
            timestamp: Date(timeIntervalSince1970: 1_800_000_000 + Double(index) / 10), source: source, kind: .gnssCompass,
            pitch: index.isMultiple(of: 3) ? -1.5 : nil
        )
    }

    /// Writes `headings` through a buffer of `capacity` bytes into a temporary file; returns the file's text.
    private static func written(_ headings: [Heading], format: OutputFormat, capacity: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("output-buffer-\(UUID()).txt").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor); unlink(path) }
        let formatter = HeadingLineFormatter(format: format)
        let buffer = OutputBuffer(writer: LineWriter(fileDescriptor: descriptor), capacity: capacity)
        for heading in headings { #expect(buffer.append(heading, formattedBy: formatter) == nil) }
        #expect(buffer.flush() == nil)
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test(arguments: [OutputFormat.json, .text])
    func linesAreTheFormattersInOrderAcrossBlocks(format: OutputFormat) throws {
        let headings = (0..<500).map { Self.heading($0, source: "replay:/var/lib/headingd/recording.nmea") }
        let expected = headings.map { HeadingLineFormatter(format: format).line(for: $0) + "\n" }.joined()
        #expect(try Self.written(headings, format: format, capacity: 1024) == expected)
    }

    @Test func aLineLongerThanABlockKeepsItsPlace() throws {
        let long = String(repeating: "\u{1}é\"", count: 4000)  // 16 kB of source, escaped to more
        let headings = [Self.heading(1, source: "a"), Self.heading(2, source: long), Self.heading(3, source: "a")]
        let formatter = HeadingLineFormatter(format: .json)
        let expected = headings.map { formatter.line(for: $0) + "\n" }.joined()
        #expect(expected.utf8.count > 32 * 1024)
        #expect(try Self.written(headings, format: .json, capacity: 1024) == expected)
    }

    /// A live heading's line is formatted on the stack and written whole, the same text as the
    /// formatter's; one too long for the stack goes out whole too.
    @Test(arguments: ["gpsd://127.0.0.1:2947", String(repeating: "\u{1}é\"", count: 2000)])
    func anUnbatchedLineIsTheFormattersLine(source: String) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("line-writer-\(UUID()).txt").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor); unlink(path) }
        let formatter = HeadingLineFormatter(format: .json)
        let headings = (0..<3).map { Self.heading($0, source: source) }
        for heading in headings { #expect(LineWriter(fileDescriptor: descriptor).write(heading, formattedBy: formatter) == nil) }
        let expected = headings.map { formatter.line(for: $0) + "\n" }.joined()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
    }
}
