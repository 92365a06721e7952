// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// `make install` with `PREFIX` and `DESTDIR`, staged into a scratch directory.
@Suite(.processSlot)
struct InstallTests {
    @Test(arguments: ["/usr", "/usr/local"])
    func makeInstallStagesBinaryUnitAndConfiguration(prefix: String) async throws {
        let stage = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: stage) }
        let install = try await DebianPackageTests.run(
            "/usr/bin/make",
            ["install", "DESTDIR=\(stage.path)", "PREFIX=\(prefix)", "BINARY=\(DaemonProcess.executableURL.path)"],
            in: DebianPackageTests.repository
        )
        #expect(install.status == 0, "make install: \(install.output)")
        #expect(FileManager.default.isExecutableFile(atPath: stage.path + prefix + "/bin/headingd"))
        let unit = try String(contentsOfFile: stage.path + prefix + "/lib/systemd/system/headingd.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix)/bin/headingd\n"))
        #expect(FileManager.default.fileExists(atPath: stage.path + "/etc/headingd/headingd.toml"))

        // A second install keeps the administrator's configuration.
        let config = stage.path + "/etc/headingd/headingd.toml"
        try Data("format = \"json\"\n".utf8).write(to: URL(fileURLWithPath: config))
        let again = try await DebianPackageTests.run(
            "/usr/bin/make",
            ["install", "DESTDIR=\(stage.path)", "PREFIX=\(prefix)", "BINARY=\(DaemonProcess.executableURL.path)"],
            in: DebianPackageTests.repository
        )
        #expect(again.status == 0)
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "format = \"json\"\n")
    }
}
