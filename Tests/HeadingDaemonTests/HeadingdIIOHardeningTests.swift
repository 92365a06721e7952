// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hardening 5, IIO (items 1–4): attributes that never answer, cannot be read, or name themselves
/// with control characters, and a tree of 10,000 devices, through the binary the tests run (the
/// package's release build under `scripts/test`).
@Suite(.processSlot, .timeLimit(.minutes(5)))
struct HeadingdIIOHardeningTests {
    /// A fake device directory: a magnetometer pointing 90° magnetic, level.
    static func tree(_ values: [String: String] = [:]) throws -> (root: URL, device: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-iio-hard-\(UUID().uuidString)")
        let device = root.appendingPathComponent("iio:device0")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        let base = ["name": "hmc5883l", "in_magn_scale": "0.001", "in_magn_x_raw": "-190", "in_magn_y_raw": "0", "in_magn_z_raw": "-450"]
        for (name, value) in base.merging(values, uniquingKeysWith: { $1 }) {
            try Data((value + "\n").utf8).write(to: device.appendingPathComponent(name))
        }
        return (root, device)
    }

    /// Item 1: a FIFO in place of `in_magn_x_raw` held `open(2)` for ever: no fault, no stop. Now it
    /// is a fault naming the file, SIGTERM ends headingd at once, and a regular file put back brings
    /// the headings back by itself.
    @Test func aFIFOInPlaceOfARawAttributeIsAFaultAndTheSourceRecovers() async throws {
        let (root, device) = try Self.tree()
        defer { try? FileManager.default.removeItem(at: root) }
        let raw = device.appendingPathComponent("in_magn_x_raw")
        try FileManager.default.removeItem(at: raw)
        #expect(mkfifo(raw.path, 0o644) == 0)
        let daemon = DaemonProcess(arguments: ["--source", "iio:?root=\(root.path)&rate=20", "--format", "json", "--position", "50.8,-1.3"])
        try daemon.start()
        defer { daemon.send(SIGKILL) }
        let fault = await daemon.wait(timeout: .seconds(20), untilErrorsContain: "in_magn_x_raw: a FIFO, not a sysfs attribute")
        #expect(fault, "stderr: \(daemon.errors)")
        #expect(daemon.errors.contains("deviceLost"), "\(daemon.errors)")
        try FileManager.default.removeItem(at: raw)
        try Data("-190\n".utf8).write(to: raw)
        // The backoff's next try (1 s doubling): within 30 s.
        let back = await daemon.wait(timeout: .seconds(45)) { output, _ in output.contains("\"magneticHeading\"") }
        #expect(back, "stderr: \(daemon.errors)")

        // A FIFO again, then SIGTERM: it ends within its stop timeout (before: it sat in open(2) until SIGKILL).
        try FileManager.default.removeItem(at: raw)
        #expect(mkfifo(raw.path, 0o644) == 0)
        let signalled = ContinuousClock.now
        daemon.send(SIGTERM)
        let exited = await daemon.waitForExit(timeout: .seconds(10))
        #expect(exited && ContinuousClock.now - signalled < .seconds(5), "stderr: \(daemon.errors)")
    }

    /// Item 3: an attribute that opens but reads nothing (empty), or is a directory: the retries
    /// back off (1 s doubling) and the reason is said once, not four lines a second for ever.
    @Test(arguments: ["empty", "directory"])
    func anAttributeThatCannotBeReadBacksOffAndIsSaidOnce(kind: String) async throws {
        let (root, device) = try Self.tree()
        defer { try? FileManager.default.removeItem(at: root) }
        let raw = device.appendingPathComponent("in_magn_y_raw")
        try FileManager.default.removeItem(at: raw)
        if kind == "empty" { try Data().write(to: raw) } else { try FileManager.default.createDirectory(at: raw, withIntermediateDirectories: false) }
        let daemon = DaemonProcess(arguments: ["--source", "iio:?root=\(root.path)&rate=20", "--format", "json"])
        try daemon.start()
        defer { daemon.send(SIGKILL) }
        let said = kind == "empty" ? "in_magn_y_raw: it read nothing" : "in_magn_y_raw: a directory, not a sysfs attribute"
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: said), "stderr: \(daemon.errors)")
        // Eight seconds more: the tries at about 1, 2 and 4 s are held back as the same reason.
        try await Task.sleep(for: .seconds(8))
        let lines = daemon.errors.components(separatedBy: "\n").filter { $0.contains("in_magn_y_raw") }
        print("the \(kind) attribute: \(lines.count) line(s) of it in the first 8 s and more")
        #expect(lines.count == 1, "\(lines.count) lines: \(lines.prefix(5))")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
    }

    /// Items 2 and 4: 10,000 devices and none a magnetometer; one of them names itself with a newline
    /// and an escape sequence. The fault lists the first few and counts the rest (before: a 2.75 MB
    /// line every 5 s), and the name cannot forge a line of the log.
    @Test func tenThousandDevicesAreAShortLineAndANameCannotForgeOne() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-iio-many-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for index in 0..<10_000 {
            let device = root.appendingPathComponent("iio:device\(index)")
            try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
            let name = index == 0 ? "evil\nheadingd: FORGED\u{1B}[2J" : "accel\(index)"
            try Data(name.utf8).write(to: device.appendingPathComponent("name"))
        }
        let daemon = DaemonProcess(arguments: ["--source", "iio:?root=\(root.path)", "--format", "json"])
        try daemon.start()
        defer { daemon.send(SIGKILL) }
        #expect(await daemon.wait(timeout: .seconds(60), untilErrorsContain: "and 9995 more"), "stderr: \(daemon.errors.prefix(2000))")
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit(timeout: .seconds(10))
        let errors = daemon.errors
        print("10,000 IIO devices: \(errors.count) bytes of stderr, the longest line \(errors.components(separatedBy: "\n").map(\.count).max() ?? 0)")
        #expect(errors.count < 20_000, "\(errors.count) bytes of stderr")
        #expect(!errors.contains("\nheadingd: FORGED") && !errors.contains("\u{1B}[2J"), "\(errors.prefix(2000))")
        #expect(errors.contains(#"evil\nheadingd: FORGED\u{1B}[2J"#), "\(errors.prefix(2000))")
        #expect(errors.components(separatedBy: "\n").allSatisfy { $0.count < 2000 })
    }

    /// Item 1, the commands: `headingd scan` on a tree whose attribute is a FIFO ends (before: it
    /// never did, and ignored SIGTERM), and `headingd calibrate --timeout 3` ends at once with the reason.
    @Test func scanAndCalibrateEndOnAFIFO() async throws {
        let (root, device) = try Self.tree()
        defer { try? FileManager.default.removeItem(at: root) }
        let raw = device.appendingPathComponent("in_magn_x_raw")
        try FileManager.default.removeItem(at: raw)
        #expect(mkfifo(raw.path, 0o644) == 0)
        let started = ContinuousClock.now
        let scan = try await DaemonProcess.run(["scan", "iio:?root=\(root.path)", "--seconds", "1"], timeout: .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(25) && scan.terminationStatus == 1, "\(scan.errors)")
        #expect(scan.output.contains("a FIFO, not a sysfs attribute"), "\(scan.output)")
        let state = root.appendingPathComponent("state")
        let calibrate = try await DaemonProcess.run(
            ["calibrate", "iio:?root=\(root.path)", "--timeout", "3", "--output", state.appendingPathComponent("c.json").path], timeout: .seconds(30))
        #expect(calibrate.terminationStatus == 69 && calibrate.errors.contains("in_magn_x_raw: a FIFO, not a sysfs attribute"), "\(calibrate.errors)")
    }

    /// Whether a FUSE file system can be mounted here (root, `/dev/fuse`, Debian's python3-fusepy).
    static let canMountFUSE: Bool = geteuid() == 0 && access("/dev/fuse", R_OK | W_OK) == 0
        && access("/usr/lib/python3/dist-packages/fusepy.py", R_OK) == 0

    /// Item 1, a read that never returns: `in_magn_x_raw` on a FUSE file system whose read waits in
    /// the kernel while a file exists, as an I²C read does when the bus is held (a FIFO is refused
    /// at open; this is a regular file that opens and then does not answer). Before: no fault, no
    /// `stale`, "waiting". Now: a `deviceLost` fault naming the file within 5 s and a little, the
    /// headings back by themselves when it answers, and SIGTERM ending headingd while it stalls.
    @Test(.enabled(if: canMountFUSE, "needs root, /dev/fuse and python3-fusepy (scripts/ensure-deps test)"))
    func aReadThatStallsIsAFaultNamingTheFileAndHeadingsResume() async throws {
        let (root, device) = try Self.tree()
        defer { try? FileManager.default.removeItem(at: root) }
        let mount = root.appendingPathComponent("bus")
        let hold = root.appendingPathComponent("hold")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/iio/stalling-attribute.py")
        let bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        bus.arguments = [fixture.path, mount.path, hold.path, "-190"]
        try bus.run()
        defer {
            try? FileManager.default.removeItem(at: hold)
            kill(bus.processIdentifier, SIGKILL)
            bus.waitUntilExit()
            _ = umount2(mount.path, Int32(MNT_DETACH))
        }
        let served = mount.appendingPathComponent("raw").path
        let mounted = ContinuousClock.now + .seconds(20)
        while access(served, R_OK) != 0, ContinuousClock.now < mounted { try await Task.sleep(for: .milliseconds(50)) }  // the mount appearing
        #expect(access(served, R_OK) == 0, "the FUSE file system did not come up")
        let raw = device.appendingPathComponent("in_magn_x_raw")
        try FileManager.default.removeItem(at: raw)
        try FileManager.default.createSymbolicLink(atPath: raw.path, withDestinationPath: served)

        let daemon = DaemonProcess(arguments: ["--source", "iio:?root=\(root.path)&rate=20", "--format", "json"])
        try daemon.start()
        defer { daemon.send(SIGKILL) }
        #expect(await daemon.wait(timeout: .seconds(20)) { output, _ in output.contains("\"magneticHeading\"") }, "stderr: \(daemon.errors)")
        // The bus is held: the read in flight waits in the kernel.
        #expect(FileManager.default.createFile(atPath: hold.path, contents: nil))
        let held = ContinuousClock.now
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "in_magn_x_raw has not answered for 5 s"), "stderr: \(daemon.errors)")
        let said = try #require(daemon.timeOfError(containing: "in_magn_x_raw has not answered"))
        #expect(said - held >= .seconds(5), "said after \(said - held), before the limit")
        #expect(daemon.errors.contains("deviceLost"), "\(daemon.errors)")
        // Released: the headings come back by themselves.
        let lines = daemon.outputLines.count
        try FileManager.default.removeItem(at: hold)
        #expect(await daemon.wait(timeout: .seconds(20)) { output, _ in output.split(separator: "\n").count > lines + 5 }, "stderr: \(daemon.errors)")
        // Held again, then SIGTERM: headingd's own work ends at once — its main thread exits (the
        // process a zombie) — though a thread waits in the kernel. That read cannot be interrupted
        // (SIGKILL does not either: the process is gone only when the kernel returns it), so the
        // process ends when the bus answers, with status 0.
        #expect(FileManager.default.createFile(atPath: hold.path, contents: nil))
        try await Task.sleep(for: .seconds(1))  // a read is in flight by now (20 a second): the stall under way
        daemon.send(SIGTERM)
        var state = daemon.procState
        let ending = ContinuousClock.now + .seconds(5)
        while state != "Z", ContinuousClock.now < ending {  // the main thread's end: polled, bounded
            try await Task.sleep(for: .milliseconds(50))
            state = daemon.procState
        }
        #expect(state == "Z", "state \(state.map(String.init) ?? "gone") 5 s after SIGTERM; stderr: \(daemon.errors.suffix(1000))")
        try FileManager.default.removeItem(at: hold)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0, "stderr: \(daemon.errors.suffix(1000))")
    }
}

/// Hardening 5, item 12: echoes cut, and `calibrate`'s output checked before the turning.
@Suite(.processSlot, .timeLimit(.minutes(5)))
struct HeadingdEchoHardeningTests {
    /// A 120 KB `deviation=` point and an 80 KB scan URL are refused with a short line (before: echoed whole).
    @Test func hugeParametersAreEchoedCut() async throws {
        let point = "1:" + String(repeating: "9", count: 120_000) + "x"
        let source = try await DaemonProcess.run(["--source", "simulation?deviation=\(point)", "--count", "1"])
        #expect(source.terminationStatus != 0 && source.errors.contains("is not HEADING:DEVIATION"), "\(source.errors.prefix(500))")
        #expect(source.errors.count < 1000, "\(source.errors.count) bytes of stderr")
        // A host of 80,000 letters is a name, not one that resolves: refused by the resolver, said cut.
        let url = "tcp://" + String(repeating: "h", count: 80_000) + ":10110"
        let scan = try await DaemonProcess.run(["scan", url, "--seconds", "1"])
        #expect(scan.terminationStatus == 1 && scan.output.contains("cannot resolve hhh"), "\(scan.output.prefix(500))")
        #expect(scan.errors.count + scan.output.count < 2000 && !scan.errors.contains("\u{1B}"), "\(scan.errors.count) bytes: \(scan.errors.prefix(300))")
    }

    /// `--output` where nothing can be written: said before any turning, with the system's reason (before:
    /// after the fit, as "NSCocoaErrorDomain error 512", advising root to run as root).
    @Test func calibrateSaysAnUnwritableOutputFirst() async throws {
        let (root, _) = try HeadingdIIOHardeningTests.tree()
        defer { try? FileManager.default.removeItem(at: root) }
        let blocker = root.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let started = ContinuousClock.now
        let run = try await DaemonProcess.run(
            ["calibrate", "iio:?root=\(root.path)", "--timeout", "600", "--output", blocker.appendingPathComponent("c.json").path])
        #expect(run.terminationStatus == 73, "\(run.errors)")
        #expect(ContinuousClock.now - started < .seconds(30), "it waited for a fit first")
        #expect(run.errors.contains("cannot write \(blocker.path)/c.json (\(blocker.path) is not a directory)"), "\(run.errors)")
        #expect(!run.errors.contains("NSCocoaErrorDomain") && (geteuid() != 0 || !run.errors.contains("run as root")), "\(run.errors)")
    }
}
