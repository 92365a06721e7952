// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import HeadingPorts
import Testing

@testable import HeadingDaemon

#if canImport(Glibc)
import Glibc
#endif

/// libmosquitto and libgps are loaded by the output and the source that use them (`dlopen`), not
/// linked: a headingd that uses neither maps neither, nor what they pull in (libssl and libcrypto;
/// libdbus, libsystemd, libgcrypt …). libcrypto alone kept 0.4 MB of relocated data resident in
/// every headingd (issue 38).
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct OptionalLibraryTests {
    static let mqttLibraries: Set<String> = ["libmosquitto.so", "libssl.so", "libcrypto.so"]
    static let gpsdLibraries: Set<String> = ["libgps.so", "libdbus-1.so", "libsystemd.so", "libgcrypt.so"]

    /// Which of `names` the process maps now.
    static func mapped(_ daemon: DaemonProcess, of names: Set<String>) -> Set<String> {
        // WholeFile reads a /proc file to its end (Foundation's whole-file read stopped at its first page).
        let maps = String(decoding: WholeFile.read(path: "/proc/\(daemon.processIdentifier)/maps") ?? [], as: UTF8.self)
        return names.filter { maps.contains($0) }
    }

    static func stop(_ daemon: DaemonProcess) async {
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0, "\(daemon.errors.suffix(1000))")
    }

    @Test func aHeadingdWithoutMQTTOrGpsdMapsNeitherLibrary() async throws {
        let daemon = DaemonProcess(arguments: ["--format", "json", "--rate", "10"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20)) { output, _ in output.contains("trueHeading") })
        #expect(Self.mapped(daemon, of: Self.mqttLibraries.union(Self.gpsdLibraries)).isEmpty)
        await Self.stop(daemon)
    }

    /// The MQTT output loads libmosquitto when it makes its client (no broker needed: it retries).
    @Test func theMQTTOutputLoadsLibmosquitto() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-libraries-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let password = directory.appendingPathComponent("password")
        try Data("secret\n".utf8).write(to: password)
        let daemon = DaemonProcess(arguments: [
            "--format", "json", "--rate", "10", "--mqtt", "mqtt://127.0.0.1:\(GPSFake.freePort())", "--mqtt-username", "vessel",
            "--mqtt-password-file", password.path, "--mqtt-journal", directory.appendingPathComponent("journal.sqlite").path,
        ])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "MQTT to mqtt://127.0.0.1:"), "\(daemon.errors)")
        #expect(Self.mapped(daemon, of: Self.mqttLibraries) == Self.mqttLibraries)
        #expect(Self.mapped(daemon, of: Self.gpsdLibraries).isEmpty)
        await Self.stop(daemon)
    }

    /// The gpsd source loads libgps when it first connects (here to a port nobody listens on: it retries).
    @Test func theGpsdSourceLoadsLibgps() async throws {
        let daemon = DaemonProcess(arguments: ["--format", "json", "--source", "gpsd://127.0.0.1:\(GPSFake.freePort())"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrors: { $0.contains("cannot connect to gpsd") }), "\(daemon.errors)")
        #expect(Self.mapped(daemon, of: Self.gpsdLibraries) == Self.gpsdLibraries)
        #expect(Self.mapped(daemon, of: Self.mqttLibraries).isEmpty)
        await Self.stop(daemon)
    }
}
