// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The configuration layers end to end: files, drop-ins, environment, flags, and `--check-config`.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct ConfigurationTests {
    /// A configuration directory of its own: `headingd.toml` and `conf.d/`.
    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-config-\(UUID().uuidString)")
        var mainFile: String { url.appendingPathComponent("headingd.toml").path }

        init(main: String, dropIns: [String: String] = [:]) throws {
            try FileManager.default.createDirectory(at: url.appendingPathComponent("conf.d"), withIntermediateDirectories: true)
            try Data(main.utf8).write(to: URL(fileURLWithPath: mainFile))
            for (name, text) in dropIns {
                try Data(text.utf8).write(to: url.appendingPathComponent("conf.d").appendingPathComponent(name))
            }
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    private func effective(_ daemon: DaemonProcess) -> [String: String] {
        var values: [String: String] = [:]
        var table = ""
        for line in daemon.outputLines {
            if line.hasPrefix("[") { table = line.dropFirst().dropLast() + "." }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, !line.hasPrefix("#") { values[table + parts[0]] = parts[1] }
        }
        return values
    }

    @Test func laterLayersWinFileThenDropInThenEnvironmentThenFlag() async throws {
        let directory = try Directory(
            main: "format = \"json\"\nfilter = 1\n[simulation]\nrate = 5\nseed = 3\n",
            dropIns: ["10-a.toml": "[simulation]\nrate = 6\nseed = 4\n", "20-b.toml": "[simulation]\nrate = 7\n"]
        )
        let daemon = try await DaemonProcess.run(
            ["--check-config", directory.mainFile, "--filter", "2"], environment: ["HEADINGD_SIMULATION_RATE": "8"]
        )
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors)")
        let values = effective(daemon)
        #expect(values["format"] == "\"json\"")  // the file alone sets it
        #expect(values["simulation.seed"] == "4")  // drop-in over file
        #expect(values["simulation.rate"] == "8.0")  // environment over drop-ins (20-b's 7 over 10-a's 6)
        #expect(values["filter"] == "2.0")  // flag over file
        #expect(values["simulation.dropout_interval"] == "30.0")  // default
        #expect(daemon.output.contains("10-a.toml, "))
    }

    @Test func dropInsApplyInNameOrder() async throws {
        let directory = try Directory(main: "", dropIns: ["10-a.toml": "[simulation]\nrate = 6\n", "20-b.toml": "[simulation]\nrate = 7\n"])
        let daemon = try await DaemonProcess.run(["--check-config", directory.mainFile])
        #expect(effective(daemon)["simulation.rate"] == "7.0")
    }

    @Test(arguments: [
        ("colour = \"red\"\n", "key 'colour': unknown key"),
        ("[simulation]\nrate = \"fast\"\n", "key 'simulation.rate': must be a number"),
        ("[simulation]\nrate = -1\n", "key 'simulation.rate': must be above 0"),
        ("format = \"xml\"\n", "key 'format': must be 'text' or 'json'"),
        ("[gps]\nport = 1\n", "key 'gps': unknown table"),
        ("source = \"carrier-pigeon\"\n", "key 'source': 'carrier-pigeon' is not a source: must be 'simulation'"),
        ("source = [\"simulation\", 3]\n", "key 'source': must be a string or an array of strings"),
        ("disagreement = 5\n", "key 'disagreement': unknown key"),
        ("filter = 1\nfilter = 2\n", ":2: not valid TOML"),
    ])
    func aBadFileExits78NamingFileAndKey(text: String, message: String) async throws {
        let directory = try Directory(main: text)
        let daemon = try await DaemonProcess.run(["--config", directory.mainFile, "--count", "1"])
        #expect(daemon.terminationStatus == 78)
        #expect(daemon.errors.contains("headingd: configuration: \(directory.mainFile)"), "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains(message), "stderr: \(daemon.errors)")
        #expect(daemon.output.isEmpty)
    }

    @Test func aBadDropInIsNamedToo() async throws {
        let directory = try Directory(main: "", dropIns: ["50-bad.toml": "[replay]\nspeed = \"warp\"\n"])
        let daemon = try await DaemonProcess.run(["--check-config", directory.mainFile])
        #expect(daemon.terminationStatus == 78)
        #expect(daemon.errors.contains("conf.d/50-bad.toml: key 'replay.speed': must be a multiple from 0.001"))
    }

    @Test(arguments: [
        (["HEADINGD_COLOUR": "red"], "environment variable HEADINGD_COLOUR: is not a headingd setting"),
        (["HEADINGD_SIMULATION_SEED": "-3"], "environment variable HEADINGD_SIMULATION_SEED: key 'simulation.seed'"),
    ])
    func aBadEnvironmentVariableExits78(environment: [String: String?], message: String) async throws {
        let directory = try Directory(main: "")
        let daemon = try await DaemonProcess.run(["--check-config", directory.mainFile], environment: environment)
        #expect(daemon.terminationStatus == 78)
        #expect(daemon.errors.contains(message), "stderr: \(daemon.errors)")
    }

    @Test func aMissingNamedFileIsAnErrorButTheDefaultMayBeAbsent() async throws {
        let missing = try await DaemonProcess.run(["--check-config", "/nonexistent/headingd.toml"])
        #expect(missing.terminationStatus == 78)
        #expect(missing.errors.contains("/nonexistent/headingd.toml: no such file"))
    }

    @Test func theShippedFileIsValidAndGivesTheDefaults() async throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/headingd.toml").path
        let daemon = try await DaemonProcess.run(["--check-config", shipped])
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors)")
        let empty = try Directory(main: "")
        let defaults = try await DaemonProcess.run(["--check-config", empty.mainFile])
        // Every setting in the shipped file is commented out but the service's source and format,
        // and the status service it turns on (for `headingd status`).
        var expected = effective(defaults)
        expected["source"] = #"["gpsd://127.0.0.1:2947"]"#
        expected["format"] = #""json""#
        expected["status.enabled"] = "true"
        #expect(effective(daemon) == expected)
        #expect(effective(daemon).count == 66)  // every key but position, which is unset by default
        // The file is what the declarations write, byte for byte: every key in its table with its
        // comment and the default its field gives (a default or a help changed in the code and not
        // in the file fails here).
        let written = try await DaemonProcess.run(["--default-config"])
        #expect(written.terminationStatus == 0, "stderr: \(written.errors)")
        let text = try String(contentsOfFile: shipped, encoding: .utf8)
        #expect(
            written.output == text,
            "config/headingd.toml is not what the settings' declarations write: run `swift run headingd --default-config > config/headingd.toml`"
        )
        for key in effective(defaults).keys {
            let leaf = key.split(separator: ".").last.map(String.init) ?? key
            #expect(text.contains("\n#\(leaf) = \(effective(defaults)[key]!)\n"), "the shipped file does not show \(key)'s default")
        }
        let long = text.split(separator: "\n").filter { $0.hasPrefix("# ") && $0.count > 100 }
        #expect(long.isEmpty, "comment lines wider than 100 characters: \(long)")
    }

    @Test(arguments: [
        (Data(repeating: 0x23, count: 2 << 20), "is larger than 1024 KiB: not a configuration file"),  // 2 MiB of '#'
        (Data([0xFF, 0xFE, 0x41]), "cannot be read as UTF-8 text"),
        // Found by fuzzing: toml++ aborted on an assertion for a control character in a table header.
        (Data("format = \"json\"\n[\u{1}]\n".utf8), ":2: not valid TOML: a table header must start with a key"),
        (Data("format = \"js\u{1}on\"\n".utf8), ":1: control character U+0001, which TOML does not allow"),
        (Data("# a comment with a DEL \u{7F}\n".utf8), ":1: control character U+007F, which TOML does not allow"),
        (Data("format = \"json\"\n[= 2simulation]\n".utf8), ":2: not valid TOML: a table header must start with a key"),
        (Data("[[ .a]]\n".utf8), ":1: not valid TOML: a table header must start with a key"),
    ])
    func aFileThatIsNoConfigurationIsRefusedBeforeParsing(content: Data, reason: String) async throws {
        let directory = try Directory(main: "")
        try content.write(to: URL(fileURLWithPath: directory.mainFile))
        let daemon = try await DaemonProcess.run(["--check-config", directory.mainFile])
        #expect(daemon.terminationStatus == 78)
        let separator = reason.hasPrefix(":") ? "" : ": "  // a line number follows the path directly
        #expect(daemon.errors.contains("\(directory.mainFile)\(separator)\(reason)"), "stderr: \(daemon.errors)")
    }

    /// Inputs on which toml++ (in TOMLKit) aborts, found by `Fuzz/FuzzTOML` and kept in
    /// `Fuzz/Crashes/TOML/`: parsed in a child process first, so each is a refusal (78) naming the
    /// file, never a crash (134). `parse-value-terminator.toml` has no pre-parse check: only the
    /// child process stands between it and an abort.
    @Test(arguments: ["parse-value-terminator.toml", "parse-key-header-equals.toml"])
    func aFileThatCrashesTheParserIsRefusedNotFatal(name: String) async throws {
        let crash = DebianPackageTests.repository.appendingPathComponent("Fuzz/Crashes/TOML").appendingPathComponent(name)
        let directory = try Directory(main: "")
        try Data(contentsOf: crash).write(to: URL(fileURLWithPath: directory.mainFile))
        let daemon = try await DaemonProcess.run(["--check-config", directory.mainFile])
        #expect(daemon.terminationStatus == 78)
        #expect(daemon.errors.contains("headingd: configuration: \(directory.mainFile)"), "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains("not valid TOML"), "stderr: \(daemon.errors)")
    }

    @Test func aCrashingFileIsNamedWithTheParsersWordsWhenOnlyTheChildCatchesIt() async throws {
        let crash = DebianPackageTests.repository.appendingPathComponent("Fuzz/Crashes/TOML/parse-value-terminator.toml")
        let directory = try Directory(main: "format = \"json\"\n", dropIns: ["50-crash.toml": try String(contentsOf: crash, encoding: .utf8)])
        let daemon = try await DaemonProcess.run(["--check-config", directory.mainFile])
        #expect(daemon.terminationStatus == 78)
        let dropIn = directory.url.appendingPathComponent("conf.d/50-crash.toml").path
        #expect(daemon.errors.contains("\(dropIn): not valid TOML: the parser (toml++ in TOMLKit) crashed on it (signal 6)"), "stderr: \(daemon.errors)")
    }

    @Test func aFIFOOrADirectoryIsRefusedWithoutWaitingForAWriter() async throws {
        let directory = try Directory(main: "")
        let fifo = directory.url.appendingPathComponent("fifo.toml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, directory.url.path] {
            let daemon = try await DaemonProcess.run(["--check-config", path])
            #expect(daemon.terminationStatus == 78)
            #expect(daemon.errors.contains("\(path): is not a regular file"), "stderr: \(daemon.errors)")
        }
    }

    @Test func aConfiguredSourceIsUsed() async throws {
        let directory = try Directory(main: "format = \"json\"\n[simulation]\nrate = 1000\nseed = 7\n")
        let daemon = try await DaemonProcess.run(["--config", directory.mainFile, "--count", "3"])
        #expect(daemon.terminationStatus == 0)
        #expect(daemon.outputLines.count == 3)
        #expect(daemon.outputLines.allSatisfy { $0.hasPrefix("{") })
    }

    @Test func severalSourcesComeFromATOMLArrayOrTheEnvironmentAndProcessorSettingsFromTheirTables() async throws {
        let directory = try Directory(
            main: """
                source = ["gpsd://127.0.0.1:2947/dev/ttyUSB0?offset=-1.5", "simulation?smoothing=2"]
                stale_after = 1.5
                position = "54.32,10.14"
                [disagreement]
                threshold = 0
                """
        )
        let daemon = try await DaemonProcess.run(["--check-config", directory.mainFile])
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors)")
        #expect(daemon.output.contains(#"source = ["gpsd://127.0.0.1:2947/dev/ttyUSB0?offset=-1.5", "simulation?smoothing=2"]"#))
        #expect(daemon.output.contains("stale_after = 1.5"))
        #expect(daemon.output.contains(#"position = "54.32,10.14""#))
        #expect(daemon.output.contains("threshold = 0.0"))
        let fromEnvironment = try await DaemonProcess.run(
            ["--check-config", directory.mainFile], environment: ["HEADINGD_SOURCE": "replay:/tmp/a.nmea simulation"]
        )
        #expect(fromEnvironment.output.contains(#"source = ["replay:/tmp/a.nmea", "simulation"]"#), "\(fromEnvironment.output)")
    }
}
