// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// `headingd --source gpsd://…` end to end: the real binary against a real gpsd run by gpsfake.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdGPSDTests {
    private static func gpsdLog(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/gpsd-logs/\(name)").path
    }

    @Test func countFourPrintsHemisFourHeadings() async throws {
        let fake = GPSFake(log: Self.gpsdLog("hemi.log"), port: GPSFake.freePort())
        try await fake.start()
        defer { fake.stop() }
        let endpoint = "gpsd://127.0.0.1:\(fake.port)"
        let daemon = DaemonProcess(arguments: ["--source", endpoint, "--count", "4", "--format", "json"])
        try daemon.start()
        #expect(await daemon.wait(untilErrorsContain: "headingd: \(endpoint): watching"))
        fake.release()
        #expect(await daemon.waitForExit())
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors)")
        let headings = try daemon.outputLines.map { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["trueHeading"] as? Double
        }
        #expect(headings == [274.07, 274.04, 274.12, 274.11])
        #expect(daemon.outputLines.allSatisfy { $0.contains(#""source":"\#(endpoint)""#) })
    }

    /// gpsd 3.22 drops a gyrocompass's `HE` talker without a word, even from its raw NMEA: a gpsd
    /// that streams but gives no heading must say so (issue 25), not look "all quiet".
    @Test func aGyroGpsdCannotHearIsAStaleFaultSayingWhatArrived() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-hehdt-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        var text = "# Name: a gyrocompass (HE) beside a GNSS (GP)\n"
        for index in 0..<200 {
            text += Sentence.make("HEHDT,\(100 + index % 10).0,T")
            text += Sentence.make("GPRMC,1200\(String(format: "%02d", index % 60)).00,A,5430.0000,N,01010.0000,E,0.0,,241126,,,A")
        }
        try Data(text.utf8).write(to: log)
        let fake = GPSFake(log: log.path, port: GPSFake.freePort())
        try await fake.start()
        defer { fake.stop() }
        let endpoint = "gpsd://127.0.0.1:\(fake.port)"
        // 3 s: what the fault says is the point, not how soon; at 1 s a loaded machine's gpsfake had
        // passed gpsd one line (no sentence yet) when the fault was said.
        let daemon = DaemonProcess(arguments: ["--source", endpoint, "--format", "json", "--stale-after", "3"])
        try daemon.start()
        #expect(await daemon.wait(untilErrorsContain: "headingd: \(endpoint): watching"))
        fake.release()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "\(endpoint): stale: gpsd open for"), "stderr: \(daemon.errors)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.outputLines.isEmpty)
        #expect(daemon.errors.contains("none with a heading; talkers seen: GP; sentences seen: "), "stderr: \(daemon.errors)")
        #expect(!daemon.errors.contains("talkers seen: HE") && !daemon.errors.contains("talkers seen: GP, HE"), "gpsd 3.22 forwards no HE: \(daemon.errors)")
    }

    @Test func noGpsdIsReportedAndRetriedUntilStopped() async throws {
        let endpoint = "gpsd://127.0.0.1:\(GPSFake.freePort())"
        let daemon = DaemonProcess(arguments: ["--source", endpoint])
        try daemon.start()
        #expect(await daemon.wait(untilErrorsContain: "Connection refused; retrying in"))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.exitedNormally)
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains("headingd: fault: \(endpoint): sourceUnavailable: cannot connect to gpsd at 127.0.0.1:"))
    }

    @Test func aSIGTERMAsSoonAsTheSourceStartsIsACleanStop() async throws {
        // Found by CI: a signal this early stopped the connection-state watcher while the gpsd
        // reader ended, and the two deadlocked (or the signal was lost before the service group
        // armed its handlers); the stop deadline ended headingd 1.5 s later, exit status 143.
        let endpoint = "gpsd://127.0.0.1:\(GPSFake.freePort())"
        for attempt in 1...25 {
            let daemon = DaemonProcess(arguments: ["--source", endpoint])
            try daemon.start()
            #expect(await daemon.wait(untilErrorsContain: "\(endpoint): connecting"))
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)))
            #expect(daemon.exitedNormally && daemon.terminationStatus == 0, "attempt \(attempt), stderr: \(daemon.errors)")
            if daemon.terminationStatus != 0 { break }
        }
    }

    @Test(arguments: [
        ("gpsd://host:0", "is not a gpsd source: the port must be a number from 1 to 65535"),
        ("gpsd://[::1", "is not a gpsd source: an IPv6 address must end with ]"),
        ("gpsd:///run/gpsd.sock", "gpsd's is its control socket, not for clients: give gpsd's TCP address, gpsd://HOST[:PORT]"),
        ("gps://127.0.0.1:2947", "gpsd://HOST:PORT"),
    ])
    func badGpsdURLsAreRefused(url: String, reason: String) async throws {
        let daemon = try await DaemonProcess.run(["--source", url])
        #expect(daemon.terminationStatus == 78)  // EX_CONFIG, as the same value in a file or the environment
        #expect(daemon.errors.contains(reason), "stderr: \(daemon.errors)")
    }
}
