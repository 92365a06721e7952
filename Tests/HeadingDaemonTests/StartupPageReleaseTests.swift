// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts
import Testing

@testable import HeadingDaemon

/// Start-up's code pages go back to the kernel: only clean, read-only, file-backed mappings, and
/// the process runs on after it.
struct StartupPageReleaseTests {
    /// A `/proc/PID/smaps` as Linux 6.1 writes it, one mapping of each kind.
    private static let smaps = """
        55d0c0000000-55d0c2664000 r-xp 00000000 fe:01 1234 /usr/bin/headingd
        Size:              39312 kB
        Rss:               16548 kB
        Anonymous:             0 kB
        VmFlags: rd ex mr mw me dw
        55d0c2665000-55d0c276b000 r--p 02664000 fe:01 1234 /usr/bin/headingd
        Size:               1048 kB
        Rss:                1048 kB
        Anonymous:          1048 kB
        VmFlags: rd mr mw me dw ac
        55d0c276b000-55d0c4c28000 rw-p 0276a000 fe:01 1234 /usr/bin/headingd
        Size:              3204 kB
        Anonymous:           412 kB
        55d0c4c28000-55d0c4d60000 rw-p 00000000 00:00 0 
        Anonymous:           432 kB
        7f5e23644000-7f5e2379a000 r-xp 00026000 fe:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6
        Rss:                1240 kB
        Anonymous:             0 kB
        7f5e23800000-7f5e23899000 r--p 00000000 fe:01 98 /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30
        Anonymous:             0 kB
        7f5e24000000-7f5e24001000 r-xp 00000000 fe:01 97 /tmp/old plugin.so (deleted)
        Anonymous:             0 kB
        7f5e25000000-7f5e25001000 r-xp 00000000 fe:01 96 /usr/lib/no-anonymous-line.so
        Rss:                   4 kB
        7f5e26000000-7f5e26001000 r-xs 00000000 fe:01 95 /dev/shared-mapping
        Anonymous:             0 kB
        7ffc1a7f0000-7ffc1a7f2000 r-xp 00000000 00:00 0                          [vdso]
        Anonymous:             0 kB

        """

    @Test func onlyCleanReadOnlyPrivateFileMappingsAreReleased() {
        let mappings = StartupPageRelease.cleanReadOnlyFileMappings(Array(Self.smaps.utf8))
        #expect(
            mappings == [
                .init(start: 0x55d0_c000_0000, end: 0x55d0_c266_4000),  // the executable's code
                .init(start: 0x7f5e_2364_4000, end: 0x7f5e_2379_a000),  // libc's code
                .init(start: 0x7f5e_2380_0000, end: 0x7f5e_2389_9000),  // libstdc++'s read-only data
            ]
        )
    }

    @Test func hostileTextReleasesNothing() {
        for text in ["", "\n\n", "zz-yy r-xp 0 0 0 /x\nAnonymous: 0 kB\n", "10-5 r-xp 0 0 0 /x\nAnonymous: 0 kB\n",
                     "10-20 r-xp 0 0 0 /x\nAnonymous: 12 kB\n", "10-20 rwxp 0 0 0 /x\nAnonymous: 0 kB\n",
                     String(repeating: "f", count: 40) + "-1 r-xp 0 0 0 /x\nAnonymous: 0 kB\n"]
        {
            #expect(StartupPageRelease.cleanReadOnlyFileMappings(Array(text.utf8)).isEmpty, "\(text)")
        }
    }

    /// In this very process: the resident code of the test binary shrinks, and the code runs on.
    @Test func releasingThisProcessesCodeShrinksItsResidentSetAndItRunsOn() throws {
        let before = try Self.residentFileKiB()
        let released = StartupPageRelease.releaseCleanFilePages()
        let after = try Self.residentFileKiB()
        #expect(released > 0)
        #expect(after < before, "RssFile \(before) kB before, \(after) kB after")
        // Code that had been resident runs again (it faults back in from the page cache).
        #expect(StartupPageRelease.cleanReadOnlyFileMappings(Array(Self.smaps.utf8)).count == 3)
    }

    private static func residentFileKiB() throws -> Int {
        // Read to its end (WholeFile): Foundation's String(contentsOfFile:) may stop at a /proc file's first read.
        let status = String(decoding: try #require(WholeFile.read(path: "/proc/self/status")), as: UTF8.self)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssFile:") })
        return try #require(Int(line.split(separator: " ")[1]))
    }
}
