// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGHUP: the configuration read again; a broken one changes nothing.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct ReloadTests {
    @Test func sighupAppliesAValidConfigurationBetweenReloadingAndReady() async throws {
        let directory = try ConfigurationTests.Directory(main: "format = \"text\"\n[simulation]\nrate = 200\n")
        let listener = try DatagramListener()
        let daemon = DaemonProcess(arguments: ["--config", directory.mainFile], environment: ["NOTIFY_SOCKET": listener.address])
        try daemon.start()
        #expect(await daemon.wait { output, _ in output.contains(" simulation true ") })
        try Data("format = \"json\"\n[simulation]\nrate = 200\n".utf8).write(to: URL(fileURLWithPath: directory.mainFile))
        daemon.send(SIGHUP)
        #expect(await daemon.wait { output, _ in output.contains("{\"trueHeading\"") })
        #expect(await listener.messages.wait { $0.filter { $0 == "READY=1" }.count == 2 })
        let messages = listener.messages.events
        let reloading = try #require(messages.firstIndex { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") })
        #expect(messages.firstIndex(of: "READY=1")! < reloading)
        #expect(messages.lastIndex(of: "READY=1")! > reloading)
        #expect(!messages.contains("STOPPING=1"))
        // Written before RELOADING=1, but standard error is read apart from standard output and the socket.
        #expect(await daemon.wait(untilErrorsContain: "headingd: SIGHUP: configuration reloaded"))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
        #expect(await listener.messages.wait { $0.contains("STOPPING=1") })
    }

    /// Found while chasing a CI-only failure: the reloader trapped SIGHUP only when its service
    /// ran, and a SIGHUP before then (here: as soon as headingd says it is authorized) killed
    /// headingd, 1 run in 30 on this machine, or was lost. SIGHUP is now watched from the start.
    @Test func aSIGHUPAsSoonAsHeadingdIsUpIsAReloadNeverADeath() async throws {
        let directory = try ConfigurationTests.Directory(main: "format = \"text\"\n[simulation]\nrate = 200\n")
        for attempt in 1...20 {
            let daemon = DaemonProcess(arguments: ["--config", directory.mainFile])
            try daemon.start()
            #expect(await daemon.wait(untilErrorsContain: "headingd: authorization: authorized"))
            daemon.send(SIGHUP)
            let reloaded = await daemon.wait(timeout: .seconds(10), untilErrorsContain: "headingd: SIGHUP: configuration reloaded")
            #expect(reloaded, "attempt \(attempt), stderr: \(daemon.errors)")
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)))
            #expect(daemon.exitedNormally && daemon.terminationStatus == 0, "attempt \(attempt), stderr: \(daemon.errors)")
            if !reloaded || daemon.terminationStatus != 0 { break }
        }
    }

    @Test func sighupWithABrokenFileKeepsTheRunningConfiguration() async throws {
        let directory = try ConfigurationTests.Directory(main: "format = \"text\"\n[simulation]\nrate = 200\n")
        let daemon = DaemonProcess(arguments: ["--config", directory.mainFile])
        try daemon.start()
        #expect(await daemon.wait { output, _ in output.contains(" simulation true ") })
        try Data("format = \"xml\"\n".utf8).write(to: URL(fileURLWithPath: directory.mainFile))
        daemon.send(SIGHUP)
        let errorLine = "headingd: SIGHUP: configuration not reloaded, the running one is kept: \(directory.mainFile): key 'format'"
        #expect(await daemon.wait(untilErrorsContain: errorLine))
        // Still running, still text: more lines come, none of them JSON.
        let count = daemon.outputLines.count
        #expect(await daemon.wait { output, _ in output.split(separator: "\n").count > count + 20 })
        #expect(!daemon.output.contains("{"))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
    }

    /// A drop-in on which the TOML parser aborts (`Fuzz/Crashes/TOML/`) took the daemon down on
    /// SIGHUP; parsed in a child process first, it is a refused reload like any broken file.
    @Test func sighupWithAFileThatCrashesTheParserKeepsTheDaemonRunning() async throws {
        let directory = try ConfigurationTests.Directory(main: "format = \"text\"\n[simulation]\nrate = 200\n")
        let daemon = DaemonProcess(arguments: ["--config", directory.mainFile])
        try daemon.start()
        #expect(await daemon.wait { output, _ in output.contains(" simulation true ") })
        let crash = DebianPackageTests.repository.appendingPathComponent("Fuzz/Crashes/TOML/parse-value-terminator.toml")
        let dropIn = directory.url.appendingPathComponent("conf.d/50-crash.toml")
        try Data(contentsOf: crash).write(to: dropIn)
        daemon.send(SIGHUP)
        let errorLine = "headingd: SIGHUP: configuration not reloaded, the running one is kept: \(dropIn.path): not valid TOML: the parser"
        #expect(await daemon.wait(untilErrorsContain: errorLine))
        let count = daemon.outputLines.count
        #expect(await daemon.wait { output, _ in output.split(separator: "\n").count > count + 20 })
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
    }

    /// Issue 27: a SIGHUP rebuilds the sources and the processor, not the outputs whose settings
    /// did not change: an NMEA 0183 TCP client and a subscribed Signal K stream client stay
    /// connected, the Signal K client keeps its subscription, and the heading stream to them
    /// resumes within the rebuild.
    @Test func aReloadKeepsTheOutputsAndTheirClients() async throws {
        let nmeaPort = GPSFake.freePort()
        let signalKPort = GPSFake.freePort()
        let text = """
            source = "simulation"
            [simulation]
            rate = 10.0
            [outputs.nmea0183.tcp]
            listen = "127.0.0.1:\(nmeaPort)"
            rate = 0.0
            [outputs.signalk]
            enabled = true
            listen = "127.0.0.1:\(signalKPort)"
            [metrics]
            enabled = true

            """
        let directory = try ConfigurationTests.Directory(main: text)
        let daemon = DaemonProcess(arguments: ["--config", directory.mainFile], environment: ["STATE_DIRECTORY": nil])
        try daemon.start()
        let plotter = try await LineClient.connect(port: nmeaPort)
        #expect(await plotter.readLine() != nil)
        let port = signalKPort
        async let stream = offCooperativePool { try HeadingdSignalKTests.runClient("kept", port: port, seconds: 6) }
        // The client connected before the reload (before: a 2 s sleep, and a late client connecting
        // after the reload passed too): its count in the metrics, served on the Signal K listener.
        var connected: [String: Double] = [:]
        for _ in 0..<100 where connected["headingd_output_clients{output=\"signalk\"}"] != 1 {  // polled, bounded
            try await Task.sleep(for: .milliseconds(50))
            connected = HeadingdMetricsTests.samples((try? await HeadingdMetricsTests.get("http://127.0.0.1:\(port)/metrics").body) ?? "")
        }
        #expect(connected["headingd_output_clients{output=\"signalk\"}"] == 1, "\(connected)")
        daemon.send(SIGHUP)
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "headingd: SIGHUP: configuration reloaded"), "\(daemon.errors)")
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "Signal K output on 127.0.0.1:\(port): kept"), "\(daemon.errors)")
        // The plotter's connection is the same one, and headings come on it after the reload.
        var after = 0
        let reloadedAt = ContinuousClock.now
        while ContinuousClock.now - reloadedAt < .seconds(2), let line = await plotter.readLine(timeout: .seconds(2)) {
            if line.hasPrefix("$IIHDT") { after += 1 }
        }
        #expect(after >= 10, "\(after) HDT after the reload")
        #expect(!plotter.isClosed)
        let (status, output, problems) = try await stream
        #expect(status == 0, "\(problems)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data((output.split(separator: "\n").last ?? "").utf8)) as? [String: Any])
        print("a Signal K stream client across a reload: \(seen)")
        #expect(seen["closed"] is NSNull, "\(seen)")
        #expect(seen["paths"] as? [String] == ["navigation.headingTrue"], "its subscription kept: \(seen)")
        #expect((seen["longestGap"] as? Double ?? 99) < 1.5, "\(seen)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0, "\(daemon.errors)")
    }

    /// A reload that moves the NMEA 0183 TCP port listens on the new one before it closes the old:
    /// at no moment does neither listen.
    @Test func aReloadMovesTheNMEAPortWithoutAMomentWhereNeitherListens() async throws {
        let old = GPSFake.freePort()
        let new = GPSFake.freePort()
        let file = { (port: UInt16) in "source = \"simulation\"\n[outputs.nmea0183.tcp]\nlisten = \"127.0.0.1:\(port)\"\n" }
        let directory = try ConfigurationTests.Directory(main: file(old))
        let daemon = DaemonProcess(arguments: ["--config", directory.mainFile])
        try daemon.start()
        _ = try await LineClient.connect(port: old)
        try Data(file(new).utf8).write(to: URL(fileURLWithPath: directory.mainFile))
        daemon.send(SIGHUP)
        let (gaps, sawNew) = await offCooperativePool { () -> (Int, Bool) in
            var gaps = 0
            var sawNew = false
            let deadline = ContinuousClock.now.advanced(by: .seconds(5))
            while ContinuousClock.now < deadline, !(sawNew && !Self.listens(old)) {
                let listensOld = Self.listens(old)
                let listensNew = Self.listens(new)
                if !listensOld && !listensNew { gaps += 1 }
                sawNew = sawNew || listensNew
            }
            return (gaps, sawNew)
        }
        #expect(sawNew, "the new port never listened: \(daemon.errors)")
        #expect(gaps == 0, "\(gaps) samples where neither port listened")
        #expect(!Self.listens(old), "the old port still listens")
        #expect(daemon.errors.contains("127.0.0.1:\(old): stopped, replaced by its new settings"), "\(daemon.errors)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` (a connect that succeeds, closed at once).
    static func listens(_ port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// Issue 27: a reload leaked about 230 bytes (TOMLKit frees no parsed table; the daemon now
/// parses in its checking child only). 5,000 SIGHUPs through `scripts/soak-reload`, each awaited
/// through the notify socket (`RELOADING=1`, `READY=1`), resident memory sampled every 500:
/// flat after warm-up, no descriptor left behind, a clean stop. About 2.8 minutes in a full run
/// (debug build; 10,000 reloads took 5.6 and were the suite's longest test by 2.5 minutes);
/// 9 minutes from taking its slot is its limit. `scripts/soak-reload --reloads 10000` soaks longer.
@Suite(.processSlot(limit: .seconds(540)), .timeLimit(.minutes(20)))
struct ReloadSoakTests {
    @Test func fiveThousandReloadsLeaveMemoryFlat() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/soak-reload").path
        let (status, output, errors) = try await Command.run(
            "/usr/bin/python3", [script, "--binary", DaemonProcess.executableURL.path, "--reloads", "5000", "--every", "500", "--json"]
        )
        #expect(status == 0, "\(errors)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        let samples = try #require(result["samples"] as? [[String: Any]])
        print("reload soak: \(samples.map { "\($0["reloads"] ?? 0): \($0["VmRSS"] ?? 0) KiB, \($0["fds"] ?? 0) fds" }.joined(separator: "; ")), median reload \(result["medianReloadSeconds"] ?? 0) s")
        try #require(samples.count == 11)
        // Warm-up: the first 1,000 (allocator arenas, caches). The leak this guards against grew
        // 230 bytes a reload, steadily: about 112 KiB every 500 reloads. Now the heap grows by a
        // step now and then (the allocator's: +400 KiB between two samples in one run) and is
        // otherwise flat alone (35 bytes a reload over 8,000); beside the rest of the suite it
        // crept more (a median 500-reload step of 54 KiB in one run, 108 bytes a reload). So: the
        // median growth of the eight 500-reload steps from the 1,000th under 80 KiB (160 bytes a
        // reload: the old leak fails it by 40 %), and all of it under 1 MiB.
        // The release binary (the one tested now) warms up longer: measured alone over 20,000
        // reloads, it grew about 50 KiB per 500 until some 6,000–8,000, then stayed flat (27,848 KiB
        // at 8,000, 27,852 at 20,000); beside the suite one run's median step from the 1,000th was
        // exactly 80 KiB. So the last four steps (3,000 to 5,000) are looked at, where the warm-up
        // has mostly passed. A leak grows every step by the same amount; the allocator grows in
        // steps now and then (two of the four, +304 and +164 KiB, in one fresh-clone run whose other
        // two were 12 and 16, and whose median, 90, failed the bound this check had). So the
        // smallest of the four must be under 40 KiB: a steady leak of 82 bytes a reload or more
        // fails (the old one, 230, by nearly three times), a sporadic allocator step does not.
        let rss = samples.map { $0["VmRSS"] as? Int ?? 0 }
        let steps = (7...10).map { rss[$0] - rss[$0 - 1] }.sorted()
        #expect(steps[0] < 40, "the smallest of the last four 500-reload steps \(steps) KiB: \(samples)")
        // (From the 1,000th the release binary's warm-up alone grew 1,148 KiB in one run, then nothing.)
        #expect(rss[10] - rss[6] < 1024, "\(samples)")
        #expect((samples[10]["fds"] as? Int ?? 99) <= (samples[2]["fds"] as? Int ?? 0) + 2, "\(samples)")
    }
}
