// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitTesting
import HeadingPorts
import NMEA2000
import Testing

@testable import HeadingDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `headingd scan` (issue 41), the real binary against real peers: a socat pty carrying a gyro, a
/// fluxgate and a GNSS at 4800 baud, UDP datagrams of a YD RAW gateway playing canboat's Dirona
/// recording, a fake IIO tree, a gpsd under gpsfake, and a port this user may not open. (A vcan0
/// with the recording's two compasses, in the VM: scripts/vm/socketcan-test.)
@Suite(.processSlot, .timeLimit(.minutes(10)))
struct HeadingdScanTests {
    static let fixtures = HeadingdStreamSourceTests.fixtures

    static func json(_ daemon: DaemonProcess) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(daemon.output.utf8)) as? [String: Any], "\(daemon.output)\n\(daemon.errors)")
    }

    /// Writes lines to a pty's end until stopped, as instruments on one multiplexed line would.
    final class Talker: Sendable {
        private let stop = StopSignal()

        init(path: String, lines: [String], every interval: Double = 0.1) {
            let stop = stop
            let thread = Thread {
                var index = 0
                while !stop.wait(seconds: interval) {
                    PTYPair.write(lines[index % lines.count], to: path)
                    index += 1
                }
            }
            thread.start()
        }

        func end() { stop.stop() }
    }

    @Test func aLineCarryingAGyroAFluxgateAndAGNSSIsFoundSplitByTalkerAndWrittenBestFirst() async throws {
        let directory = try HeadingdStreamSourceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ends = (directory.appendingPathComponent("instruments").path, directory.appendingPathComponent("ttyUSB0").path)
        let pair = try PTYPair(ends)
        defer { pair.end() }
        let talker = Talker(path: ends.0, lines: [
            Sentence.make("HEHDT,123.4,T") + Sentence.make("HEROT,1.2,A"),
            Sentence.make("HCHDG,120.1,,,1.2,E"),
            Sentence.make("GPHDT,123.6,T") + Sentence.make("GPRMC,120000,A,5047.00,N,00118.00,W,5.0,124.0,271126,1.2,W"),
        ])
        defer { talker.end() }
        let config = directory.appendingPathComponent("scan.toml").path
        let scan = try await DaemonProcess.run(["scan", "serial://\(ends.1)", "--seconds", "2", "--json", "--write-config", config])
        #expect(scan.terminationStatus == 0, "\(scan.errors)")
        let report = try Self.json(scan)
        // The JSON's keys are headingd's interface: these and no others.
        #expect(Set(report.keys) == ["version", "date", "seconds", "candidates", "sources"])
        #expect(report["version"] as? Int == 1)
        let candidate = try #require((report["candidates"] as? [[String: Any]])?.first)
        #expect(Set(candidate.keys).isSubset(of: [
            "candidate", "outcome", "problem", "fix", "format", "baud", "seconds", "sentences", "devices", "gpsdDevices", "iio", "unreadable", "sources",
        ]), "\(candidate.keys)")
        #expect(candidate["outcome"] as? String == "heard" && candidate["baud"] as? Int == 4800 && candidate["format"] as? String == "nmea0183", "\(candidate)")
        let sentences = try #require(candidate["sentences"] as? [String: Int])
        #expect(Set(sentences.keys) == ["HEHDT", "HEROT", "HCHDG", "GPHDT", "GPRMC"], "\(sentences)")
        let sources = try #require(report["sources"] as? [[String: Any]])
        #expect(sources.allSatisfy { Set($0.keys).isSubset(of: ["url", "kind", "heard", "rate", "dropIn"]) })
        let base = "serial://\(ends.1)?baud=4800"
        #expect(sources.map { $0["url"] as? String } == [
            "\(base)&talker=HE", "\(base)&talker=GP&sentences=HDT", "\(base)&talker=HC", "\(base)&talker=GP&sentences=RMC",
        ], "\(sources)")
        #expect(sources.map { $0["kind"] as? String } == ["gyro", "gnssCompass", "fluxgate", "courseOverGround"])
        #expect(sources.allSatisfy { $0["dropIn"] as? String == "serial-input.conf" })
        #expect(scan.errors.contains("serial://\(ends.1): 4800 baud…") && scan.errors.contains("[1/1] serial://\(ends.1): 4 heading sources"), "\(scan.errors)")

        // The file: accepted by --check-config, ranked with what was heard, and run: the gyro's headings.
        let text = try String(contentsOfFile: config, encoding: .utf8)
        #expect(text.contains("# gyro: HEHDT ×") && text.contains("drop-in serial-input.conf"), "\(text)")
        let check = try await DaemonProcess.run(["--check-config", config])
        #expect(check.terminationStatus == 0, "\(check.errors)")
        // (The first may come from another before the gyro is healthy: the gyro's is the one kept.)
        // The file turns the status page on at its default 127.0.0.1:9947, which the system test's
        // headingd (sharing this host's network) may hold: the test's own port, given on the command line.
        let run = try await DaemonProcess.run(
            ["--config", config, "--http-listen", "127.0.0.1:\(GPSFake.freePort())", "--count", "10"], timeout: .seconds(60))
        #expect(run.terminationStatus == 0, "\(run.errors)")
        let headings = HeadingdStreamSourceTests.headings(run)
        #expect(headings.count == 10 && headings.suffix(5).allSatisfy { $0["source"] as? String == "\(base)&talker=HE" && $0["trueHeading"] as? Double == 123.4 },
                "\(run.output)")
    }

    @Test func anActisenseNGT1OnASerialLineIsRecognisedAsTheBus() async throws {
        let directory = try HeadingdStreamSourceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ends = (directory.appendingPathComponent("ngt1").path, directory.appendingPathComponent("ttyUSB2").path)
        let pair = try PTYPair(ends)
        defer { pair.end() }
        // A magnetic heading (reference 1) from address 0x10, as an NGT-1 passes it on (BST 0x93).
        let message = ActisenseFrameSplitter.encodeMessage(
            priority: 2, pgn: 127_250, source: 0x10, timestamp: 0x1010, payload: [0xFF, 0x16, 0x3A, 0xFF, 0x7F, 0xFF, 0x7F, 0xFD])
        let stop = StopSignal()
        let thread = Thread { while !stop.wait(seconds: 0.05) { PTYPair.write(bytes: message, to: ends.0) } }
        thread.start()
        defer { stop.stop() }
        let scan = try await DaemonProcess.run(["scan", "serial://\(ends.1)", "--seconds", "1", "--json"])
        #expect(scan.terminationStatus == 0, "\(scan.errors)")
        let candidate = try #require((try Self.json(scan)["candidates"] as? [[String: Any]])?.first)
        #expect(candidate["format"] as? String == "actisense" && candidate["sentences"] as? [String: Int] == [:], "\(candidate)")
        let source = try #require((candidate["sources"] as? [[String: Any]])?.first, "\(candidate)")
        // A pty takes any rate, so the first tried is the one found; a real NGT-1's is 115200.
        #expect(source["url"] as? String == "serial://\(ends.1)?baud=4800&format=actisense" && source["kind"] as? String == "fluxgate", "\(source)")
        #expect(source["dropIn"] as? String == "nmea2000-ngt1.conf")
    }

    @Test func aYDRAWGatewaysDatagramsAreTheBusWithItsTwoCompassesByNAME() async throws {
        let port = GPSFake.freePort()
        // canboat's Dirona recording as a YDWG-02 sends it in RAW mode.
        let recording = try String(contentsOf: Self.fixtures.appendingPathComponent("nmea2000/dirona-parity.candump.log"), encoding: .utf8)
        let lines = recording.split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: " ")
            guard parts.count == 3 else { return nil }
            let frame = parts[2].split(separator: "#")
            guard frame.count == 2 else { return nil }
            let data = Array(frame[1])
            let bytes = stride(from: 0, to: data.count, by: 2).map { String(data[$0..<min($0 + 2, data.count)]) }
            return "00:29:58.617 R \(frame[0]) \(bytes.joined(separator: " "))\r\n"
        }
        let scan = DaemonProcess(arguments: ["scan", "udp://127.0.0.1:\(port)", "--seconds", "3", "--json"])
        try scan.start()
        #expect(await scan.wait(untilErrorsContain: "udp://127.0.0.1:\(port): listening"), "\(scan.errors)")
        let sender = try UDPSender(port: port)
        for chunk in stride(from: 0, to: lines.count, by: 8) {
            sender.send(lines[chunk..<min(chunk + 8, lines.count)].joined())
            await sender.waitForRoom()
        }
        #expect(await scan.waitForExit(timeout: .seconds(30)))
        #expect(scan.terminationStatus == 0, "\(scan.errors)")
        let report = try Self.json(scan)
        let candidate = try #require((report["candidates"] as? [[String: Any]])?.first)
        #expect(candidate["format"] as? String == "ydraw", "\(candidate)")
        let devices = try #require(candidate["devices"] as? [[String: Any]])
        let compasses = devices.filter { (($0["pgns"] as? [String: Int])?["127250"] ?? 0) > 0 }
        #expect(compasses.map { $0["address"] as? Int } == [7, 105], "\(devices)")
        #expect(compasses.allSatisfy { ($0["name"] as? String)?.hasPrefix("0x") == true }, "\(compasses)")
        let sources = try #require(report["sources"] as? [[String: Any]])
        let urls = sources.compactMap { $0["url"] as? String }
        for compass in compasses {
            let name = try #require(compass["name"] as? String)
            #expect(urls.contains("udp://127.0.0.1:\(port)?format=ydraw&device=\(name)"), "\(urls)")
        }
        // Device 33 sends course over ground only: last.
        #expect(sources.last?["kind"] as? String == "courseOverGround", "\(sources)")
        #expect(sources.allSatisfy { $0["dropIn"] as? String == "lan-feed.conf" })
    }

    @Test func aFakeIIOTreeIsAnIMUWithItsCalibrationStated() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-scan-iio-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let state = root.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        for (device, values) in [
            ("iio:device0", ["name": "lis3mdl", "in_magn_scale": "0.001", "in_magn_x_raw": "-190", "in_magn_y_raw": "0", "in_magn_z_raw": "-450"]),
            ("iio:device1", ["name": "lsm6ds", "in_accel_scale": "0.01", "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "981"]),
        ] {
            let directory = root.appendingPathComponent("tree/\(device)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, value) in values { try Data((value + "\n").utf8).write(to: directory.appendingPathComponent(name)) }
        }
        let url = "iio:?root=\(root.path)/tree"
        let bare = try await DaemonProcess.run(["scan", url, "--json"], environment: ["STATE_DIRECTORY": state.path])
        #expect(bare.terminationStatus == 0, "\(bare.errors)")
        let found = try #require((try Self.json(bare)["candidates"] as? [[String: Any]])?.first)
        let iio = try #require(found["iio"] as? [String: Any], "\(found)")
        #expect(iio["magnetometer"] as? String == "iio:device0 (lis3mdl)" && iio["accelerometer"] as? String == "iio:device1 (lsm6ds)", "\(iio)")
        #expect(iio["calibrated"] as? Bool == false && iio["calibrationFile"] as? String == "\(state.path)/calibration-lis3mdl.json", "\(iio)")
        #expect(abs(((iio["fieldMicrotesla"] as? Double) ?? 0) - 48.85) < 0.01, "\(iio)")
        let source = try #require((found["sources"] as? [[String: Any]])?.first)
        #expect(source["kind"] as? String == "imu" && source["url"] as? String == url, "\(source)")

        // With a calibration in the state directory, it says so (and the text report tells how to make one without).
        try Data("""
            {"offset": [1, 2, 3], "softIron": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "mode": "ellipsoid", "fieldStrength": 48,
             "residual": 0.2, "headingError": 0.5, "coverage": 0.8, "samples": 500, "date": "2026-11-01T00:00:00Z"}
            """.utf8).write(to: state.appendingPathComponent("calibration-lis3mdl.json"))
        let calibrated = try await DaemonProcess.run(["scan", url], environment: ["STATE_DIRECTORY": state.path])
        #expect(calibrated.terminationStatus == 0 && calibrated.output.contains("calibration \(state.path)/calibration-lis3mdl.json: ellipsoid, 0.20 µT RMS, about 0.5° of heading"), "\(calibrated.output)")
        #expect(bare.errors.contains("[1/1] \(url): 1 heading source"), "\(bare.errors)")
    }

    @Test func aGpsdUnderGpsfakeIsFoundWithItsDevice() async throws {
        let fake = GPSFake(log: Self.fixtures.appendingPathComponent("gpsd-logs/hemi.log").path, port: GPSFake.freePort())
        try await fake.start()
        defer { fake.stop() }
        let endpoint = "gpsd://127.0.0.1:\(fake.port)"
        let scan = DaemonProcess(arguments: ["scan", endpoint, "--seconds", "3", "--json"])
        try scan.start()
        #expect(await scan.wait(untilErrorsContain: "\(endpoint): watching"), "\(scan.errors)")
        fake.release()
        #expect(await scan.waitForExit(timeout: .seconds(30)))
        #expect(scan.terminationStatus == 0, "\(scan.errors)")
        let candidate = try #require((try Self.json(scan)["candidates"] as? [[String: Any]])?.first)
        let devices = try #require(candidate["gpsdDevices"] as? [[String: Any]], "\(candidate)")
        #expect(devices.count == 1 && ((devices.first?["headings"] as? Int) ?? 0) > 0, "\(devices)")
        let source = try #require((candidate["sources"] as? [[String: Any]])?.first)
        #expect(source["url"] as? String == endpoint && source["kind"] as? String == "gnssCompass", "\(source)")
        // Its raw NMEA (gpsd passes it on) shows the talkers.
        #expect(((candidate["sentences"] as? [String: Int])?.keys.contains { $0.hasSuffix("HDT") }) == true, "\(candidate)")
    }

    @Test func aPortThisUserMayNotOpenIsReportedWithItsFix() async throws {
        try #require(getuid() == 0, "needs root to run headingd as another user")
        let directory = try HeadingdStreamSourceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let ends = (directory.appendingPathComponent("gyro").path, directory.appendingPathComponent("ttyUSB1").path)
        let pair = try PTYPair(ends)
        defer { pair.end() }
        chmod(ends.1, 0o660)
        let scan = DaemonProcess(
            arguments: ["scan", "serial://\(ends.1)", "--seconds", "1"],
            launcher: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        try scan.start()
        #expect(await scan.waitForExit(timeout: .seconds(30)))
        #expect(scan.terminationStatus == 1, "\(scan.errors)")
        #expect(scan.output.contains("serial://\(ends.1): permission denied: cannot open \(ends.1): Permission denied"), "\(scan.output)")
        #expect(scan.output.contains("fix: \(ends.1) belongs to the group ") && scan.output.contains("sudo usermod -aG ")
            && scan.output.contains("/usr/share/headingd/drop-ins/serial-input.conf"), "\(scan.output)")
        #expect(scan.output.contains("No heading source found."), "\(scan.output)")
    }

    /// A UDP port another program holds (a running headingd, say): the system's reason, and the fix,
    /// known by the error's number (`EADDRINUSE`), not by its words.
    @Test func aUDPPortAnotherProgramHoldsIsReportedWithItsFix() async throws {
        // Bound without SO_REUSEADDR (headingd's own listener sets it, and two such share a port), to
        // a port the kernel chooses: the tests' reserved ports are held with SO_REUSEADDR already.
        let holder = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(holder >= 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, length) == 0 && getsockname(holder, $0, &length) == 0 }
        }
        try #require(bound, "cannot hold a UDP port: \(String(cString: strerror(errno)))")
        let port = UInt16(bigEndian: address.sin_port)
        let scan = try await DaemonProcess.run(["scan", "udp://127.0.0.1:\(port)", "--seconds", "1"])
        #expect(scan.terminationStatus == 1, "\(scan.errors)")
        #expect(scan.output.contains("udp://127.0.0.1:\(port): not available: cannot listen on udp://127.0.0.1:\(port): Address already in use"), "\(scan.output)")
        #expect(scan.output.contains("fix: another program listens there (a running headingd? sudo systemctl stop headingd first)"), "\(scan.output)")
    }

    @Test func ctrlCOrSIGTERMEndsTheListeningAndReportsWhatWasHeard() async throws {
        for signal in [SIGINT, SIGTERM] {
            let port = GPSFake.freePort()
            let scan = DaemonProcess(arguments: ["scan", "udp://127.0.0.1:\(port)", "--seconds", "600"])
            try scan.start()
            #expect(await scan.wait(untilErrorsContain: "udp://127.0.0.1:\(port): listening"), "\(scan.errors)")
            scan.send(signal)
            #expect(await scan.waitForExit(timeout: .seconds(5)), "signal \(signal) did not end it")
            #expect(scan.terminationStatus == 1 && scan.output.contains("silent (nothing heard before the scan was stopped"), "\(scan.output)")
        }
    }

    @Test func whatScanCannotListenToIsRefusedAtOnce() async throws {
        let replay = try await DaemonProcess.run(["scan", "replay:/tmp/x.nmea"])
        #expect(replay.terminationStatus == 64 && replay.errors.contains("a simulation or a recording is not one"), "\(replay.errors)")
        let seconds = try await DaemonProcess.run(["scan", "--seconds", "0"])
        #expect(seconds.terminationStatus == 64 && seconds.errors.contains("--seconds must be from 0.5 to 600."), "\(seconds.errors)")
        let garbage = try await DaemonProcess.run(["scan", "serial://dev/x"])
        #expect(garbage.terminationStatus == 64 && garbage.errors.contains("a serial line is serial:///dev/NAME"), "\(garbage.errors)")
    }

    @Test func whatTheMachineHasIsFoundInSysAndDev() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-scan-sys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = FileManager.default
        func make(_ path: String, _ text: String? = nil) throws {
            let url = root.appendingPathComponent(path)
            try files.createDirectory(at: text == nil ? url : url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let text { try Data(text.utf8).write(to: url) }
        }
        try make("sys/class/tty/ttyUSB0/device/driver")
        try make("sys/class/tty/ttyACM10/device/driver")
        try make("sys/class/tty/ttyACM2/device/driver")
        try make("sys/class/tty/ttyS0/device/driver")
        try make("sys/class/tty/ttyS0/type", "0\n")  // an 8250 port with no UART
        try make("sys/class/tty/ttyS1/device/driver")
        try make("sys/class/tty/ttyS1/type", "4\n")
        try make("sys/class/tty/ttyUSB9")  // no driver
        try make("sys/class/tty/tty1/device/driver")
        try make("sys/class/net/can0/type", "280\n")
        try make("sys/class/net/eth0/type", "1\n")
        try make("sys/bus/iio/devices/iio:device0/in_magn_x_raw", "1")
        try make("sys/bus/iio/devices/iio:device0/in_magn_y_raw", "1")
        try make("sys/bus/iio/devices/iio:device0/in_magn_z_raw", "1")
        try make("dev/serial/by-id")
        try files.createSymbolicLink(atPath: root.appendingPathComponent("dev/serial/by-id/usb-FTDI_FT232R-if00-port0").path, withDestinationPath: "../../ttyUSB0")
        let found = ScanCandidate.discover(devices: root.path + "/dev", system: root.path + "/sys").map(\.description)
        #expect(found == [
            "serial://\(root.path)/dev/serial/by-id/usb-FTDI_FT232R-if00-port0",
            "serial://\(root.path)/dev/ttyACM2", "serial://\(root.path)/dev/ttyACM10", "serial://\(root.path)/dev/ttyS1",
            "socketcan://can0", "udp://:10110", "udp://:2000", "udp://:1457", "gpsd://127.0.0.1:2947",
            "iio:?root=\(root.path)/sys/bus/iio/devices",
        ], "\(found)")
    }
}
