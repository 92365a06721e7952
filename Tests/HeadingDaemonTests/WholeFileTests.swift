// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts
import Testing

@testable import HeadingDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The one reader of configuration files and /proc: to the end, and no further than its limit.
struct WholeFileTests {
    /// A /proc file reports a size of 0 and gives a page or so a read: all of it is read.
    @Test func aProcFileIsReadToItsEnd() throws {
        let smaps = try #require(WholeFile.read(path: "/proc/self/smaps"))
        #expect(smaps.count > 64 * 1024, "\(smaps.count) bytes")
        let text = String(decoding: smaps, as: UTF8.self)
        #expect(text.hasSuffix("\n") && text.contains("[stack]"))
    }

    /// Exactly the limit is whole; one byte more is not (and the read stops there).
    @Test func theLimitIsKeptToTheByte() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-wholefile-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (size, whole) in [(0, true), (1000, true), (1001, false), (50_000, false)] {
            let file = directory.appendingPathComponent("\(size)")
            try Data(repeating: 0x61, count: size).write(to: file)
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            let contents = try WholeFile.read(descriptor, limit: 1000, chunkSize: 300)
            #expect(contents.isComplete == whole, "\(size) bytes")
            #expect(whole ? contents.bytes.count == size : contents.bytes.count > 1000 && contents.bytes.count <= 1300, "\(size) bytes")
        }
        #expect(WholeFile.read(path: directory.appendingPathComponent("absent").path) == nil)
    }

    /// A read that fails says why (a directory cannot be read).
    @Test func aFailedReadSaysWhy() throws {
        let descriptor = open("/", O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(throws: PortFailure.self) { try WholeFile.read(descriptor, limit: 10) }
        do {
            _ = try WholeFile.read(descriptor, limit: 10)
        } catch {
            #expect(error.errorNumber == EISDIR && error.description == "Is a directory")
        }
    }
}
