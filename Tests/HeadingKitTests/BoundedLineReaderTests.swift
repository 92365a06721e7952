// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import HeadingKit
import Testing

/// Line ends as files have them: LF, CRLF and CR alone, wherever a chunk boundary falls.
struct BoundedLineReaderTests {
    private func lines(of text: String, chunkSize: Int) throws -> [String] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-lines-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try BoundedLineReader(path: path, maximumLineLength: 100, chunkSize: chunkSize)
        var result: [String] = []
        while let line = try reader.next() {
            guard case .text = line else {
                Issue.record("overlong line")
                continue
            }
            result.append(String(decoding: reader.line, as: UTF8.self))
        }
        return result
    }

    @Test(arguments: ["\n", "\r\n", "\r"], [1, 2, 3, 7, 64 * 1024])
    func everyLineEndGivesTheSameLines(end: String, chunkSize: Int) throws {
        let lines = ["$GPHDT,1.0,T", "", "$GPHDT,2.0,T", "x"]
        #expect(try self.lines(of: lines.joined(separator: end) + end, chunkSize: chunkSize) == lines)
        #expect(try self.lines(of: lines.joined(separator: end), chunkSize: chunkSize) == lines)
    }

    @Test func aMixOfLineEndsIsReadLineByLine() throws {
        #expect(try lines(of: "a\rb\r\nc\nd\r\r\ne", chunkSize: 2) == ["a", "b", "c", "d", "", "e"])
    }
}
