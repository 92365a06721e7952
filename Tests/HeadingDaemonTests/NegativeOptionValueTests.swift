// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// A value that starts with `-` is a value, given as a separate argument like any other (issue 27):
/// `--position -33.86,151.21` for every vessel south of the equator, and `--stale-after -1` is the
/// schema's refusal (exit 78, naming the key), as from a file or the environment — never "Missing
/// value" and exit 64.
@Suite(.processSlot)
struct NegativeOptionValueTests {
    /// Every option `--help` lists with a value (`--name <value>`).
    static let optionsWithValues: [String] = {
        // Read once, at discovery, from the binary itself: a blocking run is fine here.
        let process = Process()
        process.executableURL = DaemonProcess.executableURL
        process.arguments = ["--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let help = String(decoding: data, as: UTF8.self)
        return help.split(separator: "\n").compactMap { line -> String? in
            let text = line.drop { $0 == " " }
            guard text.hasPrefix("--"), let space = text.firstIndex(of: " "), text[space...].dropFirst().hasPrefix("<") else { return nil }
            return String(text[..<space])
        }
    }()

    @Test func helpListsTheOptionsThisTestCovers() {
        // A new option with a value joins the list below by itself; these must be among them.
        for option in ["--position", "--stale-after", "--source", "--seed", "--speed", "--nmea-tcp", "--signalk-max-clients", "--count", "--config"] {
            #expect(Self.optionsWithValues.contains(option), "\(option) not in --help: \(Self.optionsWithValues)")
        }
        #expect(Self.optionsWithValues.count >= 34)
    }

    @Test(arguments: optionsWithValues)
    func aNegativeValueIsAValueNotAMissingOne(option: String) async throws {
        let daemon = try await DaemonProcess.run(["--check-config", option, "-1"])
        #expect(daemon.terminationStatus != 64, "\(option) -1: \(daemon.errors)")
        #expect(!daemon.errors.contains("Missing value"), "\(option) -1: \(daemon.errors)")
        // Refused by the schema's bounds (78, naming the option), or a value where negative is one.
        #expect(daemon.terminationStatus == 78 || daemon.terminationStatus == 0, "\(option) -1: exit \(daemon.terminationStatus): \(daemon.errors)")
        if daemon.terminationStatus == 78 { #expect(daemon.errors.contains(option) || daemon.errors.contains("-1"), "\(daemon.errors)") }
        // Taken: the configuration --check-config prints holds the value given (a path or a
        // source named "-1", a negative offset), not a default put in its place.
        if daemon.terminationStatus == 0 { #expect(daemon.output.contains("-1"), "\(option) -1 taken, but not in: \(daemon.output)") }
    }

    @Test func aPositionSouthAndWestIsTakenAsSeparateArguments() async throws {
        let daemon = try await DaemonProcess.run(["--check-config", "--position", "-33.86,151.21", "--stale-after", "3"])
        #expect(daemon.terminationStatus == 0, "\(daemon.errors)")
        #expect(daemon.output.contains("position = \"-33.86,151.21\""), "\(daemon.output)")
        let west = try await DaemonProcess.run(["--check-config", "--position", "-22.9,-43.2"])
        #expect(west.output.contains("position = \"-22.9,-43.2\""), "\(west.output) \(west.errors)")
    }

    @Test func aNegativeStaleAfterIsRefusedAsFromAFileOrTheEnvironment() async throws {
        let flag = try await DaemonProcess.run(["--check-config", "--stale-after", "-1"])
        let environment = try await DaemonProcess.run(["--check-config"], environment: ["HEADINGD_STALE_AFTER": "-1"])
        #expect(flag.terminationStatus == 78, "\(flag.errors)")
        #expect(environment.terminationStatus == 78, "\(environment.errors)")
        #expect(flag.errors.contains("stale_after") && environment.errors.contains("stale_after"), "\(flag.errors) / \(environment.errors)")
    }
}
