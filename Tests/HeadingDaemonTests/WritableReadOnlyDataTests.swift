// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import HeadingDaemon

/// The executable's writable `.rodata`: found from its ELF headers, and only its pages that are
/// still the file's released.
struct WritableReadOnlyDataTests {
    /// The test binary's own `.rodata` as readelf (binutils) reads it: address, size, flags.
    private static func readelfRodata() throws -> (address: UInt, size: UInt, flags: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        process.arguments = ["-SW", "/proc/\(getpid())/exe"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // "  [44] .rodata           PROGBITS        0000000001f56d20 1f55d20 0dc7aa 00  WA  0   0 16"
        let line = try #require(text.split(separator: "\n").first { $0.contains(" .rodata ") })
        let fields = line.split(separator: "]", maxSplits: 1)[1].split(separator: " ")
        return (try #require(UInt(fields[2], radix: 16)), try #require(UInt(fields[4], radix: 16)), String(fields[6]))
    }

    @Test func theSectionIsWhereReadelfSaysItIs() throws {
        let descriptor = open("/proc/self/exe", O_RDONLY)
        defer { close(descriptor) }
        let section = try #require(WritableReadOnlyData.rodata { offset, count in
            var bytes = [UInt8](repeating: 0, count: count)
            return bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) } == count ? bytes : nil
        })
        let oracle = try Self.readelfRodata()
        #expect(section.address == oracle.address && section.size == oracle.size, "\(section) against readelf's \(oracle)")
        #expect(section.isWritable == oracle.flags.contains("W"))
        #expect(section.programHeaders == 0x40, "PT_PHDR right after the ELF header")
    }

    @Test func hostileHeadersFindNothing() {
        var elf = [UInt8](repeating: 0, count: 64)
        elf[0...5] = [0x7F, 0x45, 0x4C, 0x46, 2, 1]
        var huge = elf
        huge[54] = 56; huge[56] = 0xFF; huge[57] = 0xFF; huge[58] = 64; huge[60] = 0xFF; huge[61] = 0xFF; huge[62] = 0xFE; huge[63] = 0xFF
        huge[32...39] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        for file in [[], [0x7F, 0x45], Array(repeating: 0xFF, count: 64), elf, huge] {
            #expect(WritableReadOnlyData.rodata { offset, count in
                offset >= 0 && count >= 0 && offset <= file.count - count ? Array(file[offset..<(offset + count)]) : nil
            } == nil)
        }
    }

    @Test func runsArePresentFilePagesOnly() {
        let file: UInt64 = 1 << 63 | 1 << 61
        let copied: UInt64 = 1 << 63  // present, anonymous: a page written since it was mapped
        let absent: UInt64 = 1 << 61
        let runs = WritableReadOnlyData.runs(of: [file, file, copied, absent, file, file, file], firstPage: 10, pageSize: 4096)
        let expected: [StartupPageRelease.Mapping] = [.init(start: 40_960, end: 49_152), .init(start: 57_344, end: 69_632)]  // pages 10–11 and 14–16
        #expect(runs == expected)
        #expect(WritableReadOnlyData.runs(of: [copied, absent], firstPage: 1, pageSize: 4096).isEmpty)
    }

    /// In this very process: the writable mapping that holds `.rodata` keeps every page it
    /// wrote (its anonymous pages) and gives back file pages; the process runs on.
    @Test func releasingKeepsEveryWrittenPage() throws {
        let range = try #require(WritableReadOnlyData.range(), "the test binary's .rodata is writable")
        let pages = WritableReadOnlyData.filePages(in: range, pageSize: 4096)
        #expect(!pages.isEmpty, "this process has read some of its .rodata")
        #expect(pages.allSatisfy { $0.start >= range.start && $0.end <= range.end && $0.start % 4096 == 0 })
        let before = try Self.mapping(containing: range.start)
        _ = StartupPageRelease.releaseCleanFilePages()
        let after = try Self.mapping(containing: range.start)
        // The written pages are kept. (How much is released is measured in benchmarks, not
        // asserted here: the other tests run in this process meanwhile, and release and fault in
        // pages of their own.)
        #expect(after.anonymous == before.anonymous, "written pages kept: \(before) → \(after)")
        // Constant data read again (the page comes back from the file): the tests' own strings.
        #expect(String(describing: WritableReadOnlyDataTests.self) == "WritableReadOnlyDataTests")
    }

    /// Rss and Anonymous, in kB, of the mapping at `address` in /proc/self/smaps.
    private static func mapping(containing address: UInt) throws -> (resident: Int, anonymous: Int) {
        let smaps = String(decoding: try #require(WholeFile.read(path: "/proc/self/smaps")), as: UTF8.self)
        var inside = false
        var resident = 0
        for line in smaps.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), let space = line.firstIndex(of: " "), dash < space,
                let start = UInt(line[..<dash], radix: 16), let end = UInt(line[line.index(after: dash)..<space], radix: 16)
            {
                inside = start <= address && address < end
            } else if inside, line.hasPrefix("Rss:") {
                resident = Int(line.split(separator: " ")[1]) ?? 0
            } else if inside, line.hasPrefix("Anonymous:") {
                return (resident, Int(line.split(separator: " ")[1]) ?? 0)
            }
        }
        throw MappingNotFound()
    }

    private struct MappingNotFound: Error {}
}
