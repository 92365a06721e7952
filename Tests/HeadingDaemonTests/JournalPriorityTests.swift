// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// Syslog priority prefixes for journald, only when `$JOURNAL_STREAM` says the journal is listening.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct JournalPriorityTests {
    private static let journal = ["JOURNAL_STREAM": "8:123456"]

    private func temporaryFile(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-journal-\(UUID().uuidString).nmea")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func headingsAreInfoFaultsWarningsAndErrorsErrors() async throws {
        let path = try temporaryFile("$GPHDT,10.0,T\n$GPHDT,11.0,T*00\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let daemon = DaemonProcess(arguments: ["--source", "replay:\(path)", "--speed", "max", "--strict"], environment: Self.journal)
        try daemon.start()
        #expect(await daemon.waitForExit())
        #expect(daemon.terminationStatus == 65)
        #expect(daemon.outputLines.count == 1)
        #expect(daemon.outputLines.allSatisfy { $0.hasPrefix("<6>") && !$0.hasPrefix("<6><") })
        let errors = daemon.errors.split(separator: "\n").map(String.init)
        #expect(errors.contains("<6>headingd: authorization: authorized"))
        #expect(errors.contains { $0.hasPrefix("<4>headingd: fault: ") && $0.contains("checksum mismatch") })
        #expect(errors.contains { $0.hasPrefix("<6>headingd: replay of ") })
        #expect(errors.contains { $0.hasPrefix("<3>headingd: --strict: ") })
        #expect(errors.allSatisfy { $0.hasPrefix("<") })
    }

    @Test func flatOutBatchedOutputIsPrefixedToo() async throws {
        let path = try temporaryFile("$GPHDT,10.0,T\n$GPHDT,11.0,T\n$GPHDT,12.0,T\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let daemon = try await DaemonProcess.run(
            ["--source", "replay:\(path)", "--speed", "max", "--format", "json"], environment: Self.journal
        )
        #expect(daemon.outputLines.count == 3)
        #expect(daemon.outputLines.allSatisfy { $0.hasPrefix("<6>{") })
    }

    @Test func withoutJournalStreamLinesArePlain() async throws {
        let daemon = try await DaemonProcess.run(["--count", "3", "--rate", "1000", "--format", "json"])
        #expect(daemon.outputLines.allSatisfy { $0.hasPrefix("{") })
        #expect(!daemon.errors.contains("<6>"))
    }
}
