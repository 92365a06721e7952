// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Configuration
import Foundation
@testable import HeadingDaemon
import HeadingKitTesting
import Testing

/// The settings' options, read from their declarations: what each gives, what is refused and how,
/// and that `--help` and the man page list every one.
@Suite struct SettingOptionsTests {
    private static func parsed(_ arguments: [String]) throws -> SettingOptions.Parsed {
        try SettingOptions.parse(arguments).get()
    }

    @Test func eachFormOfAnOptionGivesItsKeysValue() throws {
        let given = try Self.parsed([
            "--source", "serial:///dev/ttyUSB0?deviation=0:1,90:-1", "--source=simulation", "--stale-after", "3",
            "--position", "-33.86,151.21", "--nmea-sentences", "HDT,ROT", "--signalk", "--seed=7", "--filter", "1", "--filter", "2",
        ])
        #expect(given.settings["source"] == .stringArray(["serial:///dev/ttyUSB0?deviation=0:1,90:-1", "simulation"]))
        #expect(given.settings["stale_after"] == .double(3))
        #expect(given.settings["position"] == .string("-33.86,151.21"))
        #expect(given.settings["outputs.nmea0183.tcp.sentences"] == .stringArray(["HDT", "ROT"]))
        #expect(given.settings["outputs.signalk.enabled"] == .bool(true))
        #expect(given.settings["simulation.seed"] == .int(7))
        #expect(given.settings["filter"] == .double(2), "the last one given")
        #expect(given.rest.isEmpty)
    }

    @Test func theOtherArgumentsPassOnInOrderWithTheirValues() throws {
        // --config's value is its own even when it looks like an option; after -- nothing is read.
        let given = try Self.parsed(["--config", "--rate", "--count", "5", "--check-config", "path.toml", "--", "--rate", "1"])
        #expect(given.settings.isEmpty)
        #expect(given.rest == ["--config", "--rate", "--count", "5", "--check-config", "path.toml", "--", "--rate", "1"])
        // --help is asked for as an option only, not as a value.
        #expect(try Self.parsed(["--config", "-h", "--position", "--help"]).asksForHelp == false)
        #expect(try Self.parsed(["--stale-after", "3", "-h"]).asksForHelp)
        #expect(try Self.parsed(["--", "--help"]).asksForHelp == false)
    }

    @Test func badUsageAndWrongValuesAreToldApart() {
        func failure(_ arguments: [String]) -> ConfigurationError? {
            if case .failure(let failure) = SettingOptions.parse(arguments) { return failure }
            return nil
        }
        let missing = failure(["--stale-after"])
        #expect(missing?.code == .usage, "a missing value is bad usage")
        #expect(missing?.reason == "Missing value for '--stale-after <seconds>'")
        let flag = failure(["--verbose=false"])
        #expect(flag?.code == .usage, "a flag's value is bad usage")
        #expect(flag?.reason.contains("--verbose is a flag") == true)
        let type = failure(["--rate", "fast"])
        #expect(type?.code == .invalid, "a wrong type is the schema's")
        #expect(type?.description == "option --rate: key 'simulation.rate': 'fast' is not a number")
        let range = failure(["--stale-after=-1"])
        #expect(range?.code == .invalid, "out of range is the schema's")
        #expect(range?.description.contains("between 0.01 and 3600 seconds") == true)
    }

    @Test func helpAndTheManPageListEveryKeysOption() throws {
        let help = SettingOptions.help(columns: 80)
        let dump = try #require(try JSONSerialization.jsonObject(with: Data(SettingOptions.dumpHelp().utf8)) as? [String: Any])
        let arguments = try #require((dump["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
        let dumped = Set(arguments.compactMap { ($0["preferredName"] as? [String: String])?["name"] })
        for key in DaemonSettings.keys {
            let label = key.option + (key.valueName.map { " <\($0)>" } ?? "")
            #expect(help.contains("\n  \(label)"), "\(label) not in --help")
            #expect(dumped.contains(String(key.option.dropFirst(2))), "\(key.option) not in the man page's description")
        }
        #expect(Set(DaemonSettings.keys.map(\.option)).count == DaemonSettings.keys.count, "one key an option")
        // Every line within the width, but for a word longer than it.
        for line in help.split(separator: "\n") where line.count > 80 {
            #expect(!line.trimmingCharacters(in: .whitespaces).contains(" "), "too wide: \(line)")
        }
    }

    /// A default is written once, in its field: the help says it from there, so a declaration that
    /// writes one by hand again (and may drift from the field) shows two.
    @Test func everyDefaultInTheHelpComesFromItsField() {
        for key in DaemonSettings.keys {
            let said = key.help.components(separatedBy: "(default: ").count - 1
            #expect(said == (key.isFlag ? 0 : 1), "\(key.name): \(key.help)")
        }
        let staleAfter = DaemonSettings.keys.first { $0.name == "stale_after" }
        #expect(staleAfter?.help.hasSuffix("(default: \(Int(DaemonSettings().staleAfter)))") == true, "\(String(describing: staleAfter?.help))")
        let sentences = DaemonSettings.keys.first { $0.name == "outputs.nmea0183.tcp.sentences" }
        #expect(sentences?.help.hasSuffix("(default: HDT,HDG,THS)") == true, "a list, as the option takes it")
    }
}

/// `--check-config` writes each key through its field's binding and reads it back the same way:
/// what it prints, read again as a file, prints the same, for a value of every kind of field.
@Suite(.processSlot) struct SettingBindingRoundTripTests {
    @Test func whatCheckConfigPrintsReadsBackTheSame() async throws {
        let given = try await DaemonProcess.run([
            "--check-config", "--source", "simulation", "--source", "udp://:10110?talker=HE", "--format", "json", "--filter", "0.5",
            "--speed", "max", "--loop", "--seed", "42", "--position", "-33.86,151.21,12", "--nmea-tcp", "[::1]:10110",
            "--nmea-sentences", "HDT,ROT", "--nmea-talker", "HE", "--nmea-udp", "192.168.1.255:10110,10.0.0.2:2000",
            "--nmea-serial", "/dev/ttyUSB1", "--nmea-serial-baud", "38400", "--signalk", "--signalk-listen", "0.0.0.0:3001",
            "--signalk-self", "urn:mrn:imo:mmsi:230099999", "--history-file", "/var/tmp/h.sqlite", "--mqtt", "mqtts://broker.example:8884",
            "--mqtt-keepalive", "60", "--nmea2000", "socketcan://can1", "--nmea2000-description", "Mast \"A\"", "--http-max-connections", "5",
        ])
        #expect(given.terminationStatus == 0, "\(given.errors)")
        let body = given.outputLines.dropFirst().joined(separator: "\n")
        for key in DaemonSettings.keys {
            let leaf = String(key.name.split(separator: ".").last ?? "")
            #expect(body.contains("\n\(leaf) = ") || body.hasPrefix("\(leaf) = ") || body.contains("# \(leaf): "), "\(key.name) not written")
        }
        #expect(body.contains("position = \"-33.86,151.21,12.0\"") || body.contains("position = \"-33.86,151.21,12\""), "\(body)")
        #expect(body.contains("speed = \"max\"") && body.contains("seed = 42") && body.contains("description = \"Mast \\\"A\\\"\""), "\(body)")
        let directory = try ConfigurationTests.Directory(main: body + "\n")
        let again = try await DaemonProcess.run(["--check-config", directory.mainFile])
        #expect(again.terminationStatus == 0, "\(again.errors)")
        #expect(again.outputLines.dropFirst().joined(separator: "\n") == body)
    }
}
