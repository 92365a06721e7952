// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// `systemd/headingd.service`, checked by systemd's own tools offline.
@Suite(.processSlot)
struct SystemdUnitTests {
    private static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("systemd/headingd.service")

    private func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await Command.run("/usr/bin/systemd-analyze", arguments)
    }

    @Test func verifyIsClean() async throws {
        // verify also checks that ExecStart exists: point it at the headingd built beside the tests.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/headingd", with: DaemonProcess.executableURL.path)
        let copy = directory.appendingPathComponent("headingd.service")
        try text.write(to: copy, atomically: true, encoding: .utf8)
        let result = try await run(["verify", copy.path])
        #expect(result.status == 0)
        // verify only warns (exit 0) on unknown keys or bad values: any output is a failure.
        #expect(result.errors.isEmpty, "systemd-analyze verify: \(result.errors)")
        // And with the documented drop-ins for LAN and serial outputs beside it.
        let dropIns = directory.appendingPathComponent("headingd.service.d")
        try FileManager.default.createDirectory(at: dropIns, withIntermediateDirectories: true)
        for name in ["lan-output.conf", "serial-output.conf", "serial-input.conf", "lan-feed.conf", "nmea2000-socketcan.conf", "nmea2000-ngt1.conf", "mqtt-broker.conf", "iio-buffer.conf"] {
            let dropIn = Self.unit.deletingLastPathComponent().appendingPathComponent("drop-ins/\(name)")
            try FileManager.default.copyItem(at: dropIn, to: dropIns.appendingPathComponent(name))
            let withDropIn = try await run(["verify", copy.path])
            #expect(withDropIn.status == 0)
            #expect(withDropIn.errors.isEmpty, "systemd-analyze verify with \(name): \(withDropIn.errors)")
        }
    }

    @Test func exposureIsAtMostOnePointTwo() async throws {
        let result = try await run(["security", "--offline=true", "--threshold=12", Self.unit.path])
        #expect(result.status == 0, "exposure above 1.2: \(result.output.suffix(300))")
        let line = result.output.split(separator: "\n").first { $0.contains("Overall exposure level") }
        let score = line.flatMap { $0.split(separator: ":").last?.split(separator: " ").first }.flatMap { Double($0) }
        #expect(score.map { $0 <= 1.2 } == true, "no score in: \(result.output.suffix(300))")
        print("systemd-analyze security: \(line ?? "")")
    }

    @Test func declaresWhatTheServiceNeeds() throws {
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
        for directive in [
            "Type=notify", "NotifyAccess=main", "WatchdogSec=", "Restart=on-failure", "StartLimitBurst=",
            "DynamicUser=yes", "CapabilityBoundingSet=\n", "ProtectSystem=strict", "PrivateDevices=yes",
            "ProtectKernelTunables=yes", "ProtectProc=", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
            "SystemCallFilter=@system-service", "MemoryDenyWriteExecute=yes", "Wants=gpsd.socket", "After=gpsd.socket",
        ] {
            #expect(text.contains(directive), "missing \(directive)")
        }
    }
}
