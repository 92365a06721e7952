// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

/// The ports (HeadingPorts) are the only library code that talks to the system: HeadingKit, the
/// NMEA 2000 codec and the outputs' encoders import no C library and call none of its I/O, so
/// they can be read, tested and changed without a device. Foundation re-exports Glibc on Linux,
/// so the test reads the sources for the calls, not only for the import.
struct PortsBoundaryTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// A C library's name, or a system call by its bare name (`send`, `read`, `close` are too
    /// common as method names to tell apart; `errno` and the rest go with them).
    static let systemCall = #"\b(import (Glibc|Darwin|Musl)|Glibc\.|errno|strerror|pread|pwrite|pollfd|fstat|lseek|ioctl|fcntl|dlsym|dlopen|pthread_\w+|getaddrinfo|O_(RDONLY|WRONLY|RDWR|NONBLOCK|CLOEXEC)|S_IF[A-Z]+|E(INTR|AGAIN|ACCES|PERM|NOENT|BUSY))\b|(?<![.\w])(?<!func )(poll|access|socket|recv)\("#

    @Test(arguments: ["HeadingKit", "NMEA2000", "HeadingOutputs"])
    func aTargetWithoutDevicesCallsNoSystem(_ target: String) throws {
        let directory = Self.sources.appendingPathComponent(target)
        let files = try #require(FileManager.default.enumerator(atPath: directory.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10, "\(directory.path): \(files.count) files")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                // What follows a comment mark, and what is inside string literals, is words.
                let beforeComment = code.components(separatedBy: "//").first ?? ""
                let outsideStrings = beforeComment.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
                if outsideStrings.range(of: Self.systemCall, options: .regularExpression) != nil { found.append("\(target)/\(file):\(number + 1): \(code)") }
            }
        }
        #expect(found.isEmpty, "system calls belong in HeadingPorts:\n\(found.joined(separator: "\n"))")
    }
}
