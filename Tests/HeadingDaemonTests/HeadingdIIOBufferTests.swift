// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The IIO source's buffered mode against Debian's umockdev: the devices' sysfs attributes
/// (`scan_elements/`, `buffer/enable`, `trigger/current_trigger`, the triggers) and a
/// `/dev/iio:deviceN` that `stat`s as a character device and gives scripted, timed reads — the
/// kernel's own buffers cannot be played here (Debian's kernel has no software trigger, and
/// i2c-stub raises no data-ready interrupt: scripts/vm/iio-test reads those drivers directly).
///
/// The magnetometer's `_raw` files point the sensor at 200°, its scans at 30°: a heading of 30° came
/// from the buffer, one of 200° from direct reads.
@Suite(.processSlot, .timeLimit(.minutes(10)))
struct HeadingdIIOBufferTests {
    /// The testbed: a LIS3MDL with a buffer, an L3G4200D gyroscope with one, and their triggers.
    struct Testbed {
        let directory: URL
        var description: URL { directory.appendingPathComponent("devices.umockdev") }
        var magnetometerScript: URL { directory.appendingPathComponent("magn.script") }
        var gyroscopeScript: URL { directory.appendingPathComponent("gyro.script") }

        /// - Parameters:
        ///   - triggers: Whether the devices' triggers are there (their interrupts wired).
        ///   - gyroscope: Whether the gyroscope is there.
        ///   - hrtimer: The name of an hrtimer trigger an administrator made, if any.
        init(triggers: Bool = true, gyroscope: Bool = true, hrtimer: String? = nil) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-iio-buffer-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // 200° level: the horizontal field (0.2 G) from the front-left, the vertical one (0.45 G) down.
            let direct = Self.raw(heading: 200, scale: 0.000146)
            var text = Self.device(
                path: "/devices/platform/soc/i2c-1/1-001c/iio:device0", node: 0, name: "lis3mdl", kind: "magn", scale: "0.000146", raw: direct,
                channels: [("in_magn_x", "le:s16/16>>0"), ("in_magn_y", "le:s16/16>>0"), ("in_magn_z", "le:s16/16>>0"), ("in_timestamp", "le:s64/64>>0")]
            )
            if gyroscope {
                text += Self.device(
                    path: "/devices/platform/soc/i2c-1/1-0069/iio:device1", node: 1, name: "l3g4200d", kind: "anglvel", scale: "0.000153", raw: (0, 0, 0),
                    channels: [("in_anglvel_x", "le:s16/16>>0"), ("in_anglvel_y", "le:s16/16>>0"), ("in_anglvel_z", "le:s16/16>>0"), ("in_timestamp", "le:s64/64>>0")]
                )
            }
            if triggers {
                text += "P: /devices/platform/soc/i2c-1/1-001c/trigger0\nE: SUBSYSTEM=iio\nA: name=lis3mdl-trigger\n\n"
                text += "P: /devices/platform/soc/i2c-1/1-0069/trigger1\nE: SUBSYSTEM=iio\nA: name=l3g4200d-dev1\n\n"
            }
            if let hrtimer { text += "P: /devices/iio_sysfs_trigger/trigger2\nE: SUBSYSTEM=iio\nA: name=\(hrtimer)\n\n" }
            try Data(text.utf8).write(to: description)
        }

        /// One device of the description: its attributes, its channels' scan elements (none enabled).
        static func device(
            path: String, node: Int, name: String, kind: String, scale: String, raw: (Int, Int, Int), channels: [(String, String)]
        ) -> String {
            var lines = [
                "P: \(path)", "N: iio:device\(node)", "E: DEVNAME=/dev/iio:device\(node)", "E: MAJOR=241", "E: MINOR=\(node)", "E: SUBSYSTEM=iio",
                "A: name=\(name)", "A: in_\(kind)_scale=\(scale)", "A: in_\(kind)_x_raw=\(raw.0)", "A: in_\(kind)_y_raw=\(raw.1)",
                "A: in_\(kind)_z_raw=\(raw.2)", "A: buffer/enable=0", "A: buffer/length=2", "A: trigger/current_trigger=",
            ]
            for (index, (channel, type)) in channels.enumerated() {
                lines += ["A: scan_elements/\(channel)_en=0", "A: scan_elements/\(channel)_index=\(index)", "A: scan_elements/\(channel)_type=\(type)"]
            }
            return lines.joined(separator: "\n") + "\n\n"
        }

        /// The raw axes of a level sensor pointing at `heading` (X right, Y forward, Z up).
        static func raw(heading: Double, scale: Double) -> (Int, Int, Int) {
            let angle = heading * .pi / 180
            return (Int((-0.2 * sin(angle) / scale).rounded()), Int((0.2 * cos(angle) / scale).rounded()), Int((-0.45 / scale).rounded()))
        }

        /// One scan: three little-endian 16-bit axes, padding, a 64-bit timestamp.
        static func scan(_ axes: (Int, Int, Int), timestamp: Int64) -> [UInt8] {
            var bytes: [UInt8] = []
            for value in [axes.0, axes.1, axes.2] { withUnsafeBytes(of: Int16(clamping: value).littleEndian) { bytes += $0 } }
            bytes += [0, 0]
            withUnsafeBytes(of: timestamp.littleEndian) { bytes += $0 }
            return bytes
        }

        /// Writes a script: each read after `milliseconds`, its bytes escaped as umockdev's script
        /// format asks (a byte below 32 as `^` and itself + 64, `^` itself as ``^` ``).
        static func write(_ reads: [(milliseconds: Int, bytes: [UInt8])], to url: URL) throws {
            var text: [UInt8] = []
            for read in reads {
                text += Array("r \(read.milliseconds) ".utf8)
                for byte in read.bytes {
                    if byte < 32 { text += [UInt8(ascii: "^"), byte + 64] } else if byte == UInt8(ascii: "^") { text += Array("^`".utf8) } else { text.append(byte) }
                }
                text.append(UInt8(ascii: "\n"))
            }
            try Data(text).write(to: url)
        }

        /// The magnetometer's scans: level at `heading`, every `period` ms, timestamped on the kernel's clock.
        func scriptMagnetometer(heading: Double = 30, count: Int = 400, period: Int = 40, firstAfter: Int? = nil) throws {
            let axes = Self.raw(heading: heading, scale: 0.000146)
            try Self.write(
                (0..<count).map { index in (index == 0 ? firstAfter ?? period : period, Self.scan(axes, timestamp: 5_000_000_000 + Int64(index) * Int64(period) * 1_000_000)) },
                to: magnetometerScript
            )
        }

        /// The gyroscope's scans: still, at 100 Hz.
        func scriptGyroscope(count: Int = 1000) throws {
            try Self.write((0..<count).map { index in (10, Self.scan((0, 0, 0), timestamp: 5_000_000_000 + Int64(index) * 10_000_000)) }, to: gyroscopeScript)
        }

        /// umockdev-run with the testbed, then headingd.
        var launcher: [String] {
            var command = ["/usr/bin/umockdev-run", "-d", description.path, "-s", "/dev/iio:device0=\(magnetometerScript.path)"]
            if FileManager.default.fileExists(atPath: gyroscopeScript.path) { command += ["-s", "/dev/iio:device1=\(gyroscopeScript.path)"] }
            return command + ["--"]
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// Runs headingd in the testbed until it has printed `count` headings; their magnetic headings and its standard error.
    func run(_ testbed: Testbed, source: String = "iio:", count: Int = 20) async throws -> (headings: [Double], errors: String, status: Int32) {
        let daemon = DaemonProcess(
            arguments: ["--source", source, "--format", "json", "--count", String(count), "--stale-after", "30"],
            environment: ["STATE_DIRECTORY": testbed.directory.path], launcher: testbed.launcher
        )
        try daemon.start()
        let exited = await daemon.waitForExit(timeout: .seconds(60))
        if !exited { daemon.send(SIGKILL) }
        let headings = HeadingdStreamSourceTests.headings(daemon).compactMap { $0["magneticHeading"] as? Double }
        return (headings, daemon.errors, exited ? daemon.terminationStatus : -1)
    }

    @Test func theMagnetometersScansAreItsHeadingsWithTheGyroscopesBesideThem() async throws {
        let testbed = try Testbed()
        defer { testbed.remove() }
        try testbed.scriptMagnetometer()
        try testbed.scriptGyroscope()
        let run = try await run(testbed)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.headings.count == 20 && run.headings.allSatisfy { abs($0 - 30) < 0.5 }, "\(run.headings)\n\(run.errors)")
        #expect(run.errors.contains("iio:device0 (lis3mdl): whole scans from its buffer (magn, 16 bytes a scan, trigger lis3mdl-trigger given)"), "\(run.errors)")
        #expect(run.errors.contains("iio:device1 (l3g4200d): whole scans from its buffer (anglvel, 16 bytes a scan, trigger l3g4200d-dev1 given)"), "\(run.errors)")
        #expect(!run.errors.contains("read directly"), "\(run.errors)")
    }

    /// Why a device is read directly: `buffer=false`, no trigger, scans that never come.
    enum Direct: String, CaseIterable {
        case bufferFalse, noTrigger, noScans, unknownTrigger
    }

    @Test(arguments: Direct.allCases)
    func aDeviceIsReadDirectlyWhenAskedOrWhenItsBufferCannotServeAndTheLogSaysWhy(_ why: Direct) async throws {
        let testbed = try Testbed(triggers: why != .noTrigger, gyroscope: false)
        defer { testbed.remove() }
        // A trigger that does not fire: the first scan 5 s after the buffer is enabled (not longer:
        // umockdev's replay keeps the process until its script has played).
        try testbed.scriptMagnetometer(count: why == .noScans ? 2 : 400, firstAfter: why == .noScans ? 5_000 : nil)
        let source = switch why {
            case .bufferFalse: "iio:?buffer=false"
            case .unknownTrigger: "iio:?trigger=hrtimer-9"
            case .noTrigger, .noScans: "iio:"
        }
        let run = try await run(testbed, source: source, count: 3)
        #expect(run.status == 0, "\(run.errors)")
        // The _raw files' 200 degrees, not the scans' 30.
        #expect(run.headings.count == 3 && run.headings.allSatisfy { abs($0 - 200) < 0.5 }, "\(run.headings)\n\(run.errors)")
        switch why {
        case .bufferFalse: #expect(!run.errors.contains("whole scans") && !run.errors.contains("read directly"), "\(run.errors)")
        case .noTrigger:
            #expect(run.errors.contains("iio:device0 (lis3mdl): read directly: it has no trigger (none named lis3mdl-dev0 or lis3mdl-…"), "\(run.errors)")
        case .noScans:
            #expect(
                run.errors.contains("its buffer gave no scan within 2 s of being enabled (a trigger that does not fire): direct reads instead"), "\(run.errors)")
        case .unknownTrigger:
            #expect(run.errors.contains("iio:device0 (lis3mdl): read directly: no trigger named hrtimer-9 (trigger=): lis3mdl-trigger"), "\(run.errors)")
        }
    }

    @Test func aTriggerNamedIsGivenInsteadOfTheDevicesOwn() async throws {
        let testbed = try Testbed(gyroscope: false, hrtimer: "hrtimer-25")
        defer { testbed.remove() }
        try testbed.scriptMagnetometer()
        let run = try await run(testbed, source: "iio:?trigger=hrtimer-25", count: 3)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.headings.count == 3 && run.headings.allSatisfy { abs($0 - 30) < 0.5 }, "\(run.headings)\n\(run.errors)")
        #expect(run.errors.contains("iio:device0 (lis3mdl): whole scans from its buffer (magn, 16 bytes a scan, trigger hrtimer-25 given)"), "\(run.errors)")
    }

    @Test func scansOfAnyBytesCutAnywhereNeverTrapAndWholeOnesStillGiveTheirHeading() async throws {
        let testbed = try Testbed(gyroscope: false)
        defer { testbed.remove() }
        // Hostile scans: extreme axes and timestamps (back, forward by years, Int64's ends), then
        // 40 good ones, in three reads cut inside scans. (Every cut, and random bytes, in
        // IIOScanAssemblerTests: here few reads, so that umockdev's replay is quick on a loaded
        // machine — a replay held up 5 s is a buffer whose scans stopped.)
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for index in 0..<200 {
            let axes = (Int(Int16.min), Int(Int16.max), index % 3 == 0 ? 0 : Int.random(in: -32768...32767, using: &generator))
            let timestamps: [Int64] = [.min, .max, 0, -1, 1 << 62, Int64.random(in: .min ... .max, using: &generator)]
            bytes += Testbed.scan(axes, timestamp: timestamps[index % timestamps.count])
        }
        let good = Testbed.raw(heading: 30, scale: 0.000146)
        for index in 0..<40 { bytes += Testbed.scan(good, timestamp: 9_000_000_000 + Int64(index) * 40_000_000) }
        let reads: [(milliseconds: Int, bytes: [UInt8])] = [(5, Array(bytes[..<1_001])), (5, Array(bytes[1_001..<3_203])), (5, Array(bytes[3_203...]))]
        try Testbed.write(reads, to: testbed.magnetometerScript)
        let daemon = DaemonProcess(
            arguments: ["--source", "iio:", "--format", "json", "--stale-after", "30"], environment: ["STATE_DIRECTORY": testbed.directory.path],
            launcher: testbed.launcher
        )
        try daemon.start()
        // The good scans' heading, three in a row (after them the script ends: the buffer is lost,
        // and the device read again), then a clean stop.
        let reached = await daemon.wait(timeout: .seconds(60)) { output, _ in
            var run = 0
            for line in output.split(separator: "\n") {
                let heading = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["magneticHeading"] as? Double
                run = heading.map { abs($0 - 30) < 0.5 } == true ? run + 1 : 0
                if run == 3 { return true }
            }
            return false
        }
        #expect(reached, "\(daemon.output.suffix(2000))\n\(daemon.errors)")
        // To headingd itself: umockdev-run, started from a test thread, has SIGTERM blocked (libdispatch's mask).
        let children = (try? String(contentsOfFile: "/proc/\(daemon.processIdentifier)/task/\(daemon.processIdentifier)/children", encoding: .utf8)) ?? ""
        let headingd = try #require(children.split(separator: " ").first.flatMap { Int32($0) }, "umockdev-run has no child")
        kill(headingd, SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.exitedNormally && daemon.terminationStatus == 0, "\(daemon.errors)")
    }
}
