// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
@testable import HeadingDaemon
import Testing

/// One schema for every layer: a value out of range is refused with the same exit status and the
/// same reason whether it comes as an option, an environment variable or a key in a file.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct SettingLayerConsistencyTests {
    /// One key's wrong value, written for each layer.
    struct Case: Sendable, CustomTestStringConvertible {
        let key: String
        /// The value as an option's argument and an environment variable's text.
        let text: String
        /// The value as TOML.
        let toml: String
        var testDescription: String { "\(key) = \(toml)" }
    }

    static let cases: [Case] = [
        Case(key: "source", text: "carrier-pigeon", toml: "\"carrier-pigeon\""),
        Case(key: "format", text: "xml", toml: "\"xml\""),
        Case(key: "filter", text: "200", toml: "200"),
        Case(key: "min_course_speed", text: "2000", toml: "2000.0"),
        Case(key: "replay.speed", text: "0", toml: "\"0\""),
        Case(key: "simulation.rate", text: "1e-20", toml: "1e-20"),
        Case(key: "simulation.seed", text: "-3", toml: "-3"),
        Case(key: "simulation.dropout_interval", text: "100000", toml: "100000"),
        Case(key: "simulation.dropout_duration", text: "0", toml: "0"),
        Case(key: "stale_after", text: "0", toml: "0"),
        Case(key: "fail_back_hold", text: "4000", toml: "4000"),
        Case(key: "disagreement.threshold", text: "181", toml: "181"),
        Case(key: "disagreement.hold", text: "-1", toml: "-1"),
        Case(key: "position", text: "54.3,10.1,-7000000", toml: "\"54.3,10.1,-7000000\""),
        Case(key: "outputs.nmea0183.tcp.listen", text: "127.0.0.1:70000", toml: "\"127.0.0.1:70000\""),
        Case(key: "outputs.nmea0183.tcp.max_clients", text: "0", toml: "0"),
        Case(key: "outputs.nmea0183.tcp.sentences", text: "GGA", toml: "[\"GGA\"]"),
        Case(key: "outputs.nmea0183.tcp.talker", text: "ii", toml: "\"ii\""),
        Case(key: "outputs.nmea0183.tcp.rate", text: "1000", toml: "1000"),
        Case(key: "outputs.nmea0183.udp.targets", text: "192.168.1.255", toml: "[\"192.168.1.255\"]"),
        Case(key: "outputs.nmea0183.udp.sentences", text: "VTG", toml: "[\"VTG\"]"),
        Case(key: "outputs.nmea0183.udp.talker", text: "I", toml: "\"I\""),
        Case(key: "outputs.nmea0183.udp.rate", text: "-1", toml: "-1"),
        Case(key: "outputs.nmea0183.serial.device", text: "ttyUSB0", toml: "\"ttyUSB0\""),
        Case(key: "outputs.nmea0183.serial.baud", text: "4801", toml: "4801"),
        Case(key: "outputs.nmea0183.serial.sentences", text: "RMC", toml: "[\"RMC\"]"),
        Case(key: "outputs.nmea0183.serial.talker", text: "$$", toml: "\"$$\""),
        Case(key: "outputs.nmea0183.serial.rate", text: "101", toml: "101"),
        Case(key: "outputs.signalk.listen", text: "localhost", toml: "\"localhost\""),
        Case(key: "http.listen", text: "9947", toml: "\"9947\""),
        Case(key: "history.days", text: "0", toml: "0"),
        Case(key: "history.file", text: "history.sqlite", toml: "\"history.sqlite\""),
        Case(key: "outputs.mqtt.broker", text: "http://broker", toml: "\"http://broker\""),
        Case(key: "outputs.mqtt.prefix", text: "vessels/#", toml: "\"vessels/#\""),
        Case(key: "outputs.mqtt.client_id", text: String(repeating: "x", count: 300), toml: "\"\(String(repeating: "x", count: 300))\""),
        Case(key: "outputs.mqtt.username", text: String(repeating: "u", count: 1100), toml: "\"\(String(repeating: "u", count: 1100))\""),
        Case(key: "outputs.mqtt.password_file", text: "secret", toml: "\"secret\""),
        Case(key: "outputs.mqtt.ca_file", text: "ca.pem", toml: "\"ca.pem\""),
        Case(key: "outputs.mqtt.cert_file", text: "cert.pem", toml: "\"cert.pem\""),
        Case(key: "outputs.mqtt.key_file", text: "key.pem", toml: "\"key.pem\""),
        Case(key: "outputs.mqtt.rate", text: "0", toml: "0"),
        Case(key: "outputs.mqtt.keepalive", text: "1", toml: "1"),
        Case(key: "outputs.mqtt.journal", text: "journal.sqlite", toml: "\"journal.sqlite\""),
        Case(key: "outputs.signalk.self", text: "urn:mrn:signalk:uuid:not-a-uuid", toml: "\"urn:mrn:signalk:uuid:not-a-uuid\""),
        Case(key: "outputs.signalk.max_clients", text: "0", toml: "0"),
        Case(key: "outputs.signalk.max_subscriptions", text: "2000", toml: "2000"),
        Case(key: "http.request_head_timeout", text: "-1", toml: "-1"),
        Case(key: "http.idle_timeout", text: "0", toml: "0"),
        Case(key: "http.max_connections", text: "-5", toml: "-5"),
        Case(key: "http.max_request_size", text: "100", toml: "100"),
        Case(key: "outputs.nmea2000.interface", text: "can0", toml: "\"can0\""),
        Case(key: "outputs.nmea2000.rate", text: "100", toml: "100"),
        Case(key: "outputs.nmea2000.manufacturer_code", text: "2048", toml: "2048"),
        Case(key: "outputs.nmea2000.device_class", text: "128", toml: "128"),
        Case(key: "outputs.nmea2000.device_function", text: "256", toml: "256"),
        Case(key: "outputs.nmea2000.device_instance", text: "-1", toml: "-1"),
        Case(key: "outputs.nmea2000.system_instance", text: "16", toml: "16"),
        Case(key: "outputs.nmea2000.heartbeat", text: "0.5", toml: "0.5"),
        Case(key: "outputs.nmea2000.description", text: String(repeating: "d", count: 71), toml: "\"\(String(repeating: "d", count: 71))\""),
    ]

    /// Every key that can hold a wrong value has a case (true or false cannot be out of range).
    @Test func everyKeyWithARangeHasACase() {
        let covered = Set(Self.cases.map(\.key))
        let keys = Set(DaemonSettings.keys.filter { $0.kind != .bool }.map(\.name))
        #expect(covered == keys)
    }

    @Test(arguments: cases)
    func optionEnvironmentAndFileGiveTheSameStatusAndReason(_ wrong: Case) async throws {
        let key = try #require(DaemonSettings.keys.first { $0.name == wrong.key })
        let empty = try ConfigurationTests.Directory(main: "")
        let parts = wrong.key.split(separator: ".")
        let toml = parts.count > 1
            ? "[\(parts.dropLast().joined(separator: "."))]\n\(parts.last!) = \(wrong.toml)\n" : "\(wrong.key) = \(wrong.toml)\n"
        let file = try ConfigurationTests.Directory(main: toml)

        // The value as a separate argument, as a user types it, even when it starts with '-' (issue 27).
        let byOption = try await DaemonProcess.run(["--config", empty.mainFile, key.option, wrong.text, "--count", "1"])
        let byEnvironment = try await DaemonProcess.run(
            ["--config", empty.mainFile, "--count", "1"], environment: [key.environmentName: wrong.text]
        )
        let byFile = try await DaemonProcess.run(["--config", file.mainFile, "--count", "1"])

        let marker = "key '\(wrong.key)': "
        func reason(_ daemon: DaemonProcess) -> String? {
            daemon.errors.split(separator: "\n").first { $0.contains(marker) }
                .map { String($0[$0.range(of: marker)!.upperBound...]) }
        }
        for daemon in [byOption, byEnvironment, byFile] {
            #expect(daemon.terminationStatus == 78, "stderr: \(daemon.errors)")
            #expect(daemon.output.isEmpty)
        }
        let reasons = [reason(byOption), reason(byEnvironment), reason(byFile)]
        #expect(reasons[0] != nil, "stderr: \(byOption.errors)")
        #expect(reasons.allSatisfy { $0 == reasons[0] }, "\(reasons)")
        #expect(byOption.errors.contains("option \(key.option): \(marker)"))
        #expect(byEnvironment.errors.contains("environment variable \(key.environmentName): \(marker)"))
        #expect(byFile.errors.contains("\(file.mainFile): \(marker)"))
    }
}
