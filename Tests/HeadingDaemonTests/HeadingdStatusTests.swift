// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

@testable import HeadingDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The status service: `headingd status` against a running daemon in each state and with none;
/// the page in Debian's Chromium, headless, driven through the DevTools protocol; the event
/// streams' bound and a SIGTERM while they are open.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdStatusTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A daemon with the status service on its own listener; the simulation drops out for
    /// `dropout` seconds every `interval`.
    static func daemon(port: UInt16, interval: Double, dropout: Double, staleAfter: Double = 1) -> DaemonProcess {
        DaemonProcess(arguments: [
            "--status", "--http-listen", "127.0.0.1:\(port)", "--rate", "20", "--format", "json", "--stale-after", "\(staleAfter)",
            "--dropout-interval", "\(interval)", "--dropout-duration", "\(dropout)",
        ])
    }

    /// `headingd status` with `arguments`: its exit status, standard output and standard error.
    static func status(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String, String) {
        var command = ["/usr/bin/env"] + environment.map { "\($0.key)=\($0.value)" }
        command += [DaemonProcess.executableURL.path, "status"] + arguments
        return try await Command.run(command[0], Array(command.dropFirst()))
    }

    /// Runs `headingd status` until its exit status is `wanted`, for at most `timeout` (the
    /// daemon's state is what changes; each run is a real client's question).
    static func status(until wanted: Int32, _ arguments: [String], timeout: Duration = .seconds(10)) async throws -> (Int32, String, String) {
        let deadline = ContinuousClock.now + timeout
        var last = try await status(arguments)
        while last.0 != wanted, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            last = try await status(arguments)
        }
        return last
    }

    /// Who listens on `port` and how `expected` is, for a failure's message: a CI run once saw
    /// a report 0.4 s old, from a simulation at its ninth heading, 12 s after the test's daemon
    /// had started, and nothing in the test says which process that was.
    static func whoAnswers(port: UInt16, expected: DaemonProcess) async -> String {
        let listeners = (try? await Command.run("/usr/bin/ss", ["-Hltnp", "sport = :\(port)"]))?.output ?? "ss failed"
        let headingds = (try? await Command.run("/usr/bin/ps", ["-o", "pid,ppid,etimes,args", "-C", "headingd"]))?.output ?? "ps failed"
        let errors = expected.errors
        return """
            the test's headingd: PID \(expected.processIdentifier), \(expected.exitedAt == nil ? "running" : "exited \(expected.terminationStatus)")
            listening on \(port): \(listeners)
            the test process still reserves \(port): \(PortReservation.holds(port))
            headingd processes:
            \(headingds)
            its standard error (the end): \(errors.suffix(2000))
            """
    }

    @Test func headingdStatusTellsEachStateAndExitsAsDocumented() async throws {
        let port = GPSFake.freePort()
        let daemon = Self.daemon(port: port, interval: 4, dropout: 2.5)
        let launched = Date()
        try daemon.start()
        let url = "http://127.0.0.1:\(port)"
        #expect(await daemon.wait(timeout: .seconds(20)) { output, _ in output.contains("trueHeading") })
        // Healthy: exit 0, the heading and the source steering.
        let (healthy, text, _) = try await Self.status(until: 0, ["--url", url])
        #expect(healthy == 0, "\(text)")
        #expect(text.contains("Heading       : ") && text.contains("° true") && text.contains("(ok,"), "\(text)")
        #expect(text.contains("* simulation  healthy"), "\(text)")
        // Found through the configuration, as the daemon reads it (a file and HEADINGD_*).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-status-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("headingd.toml")
        try Data("[status]\nenabled = true\n".utf8).write(to: file)
        let (configured, json, _) = try await Self.status(["--config", file.path, "--json"], environment: ["HEADINGD_HTTP_LISTEN": "127.0.0.1:\(port)"])
        let report = try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
        #expect(configured == 0 && report.heading.state == "ok" && report.sources.map(\.name) == ["simulation"], "\(json)")
        #expect(report.sources.first?.steering == true && (report.sources.first?.headings ?? 0) > 0)
        let isOurs = abs(report.startedAt - launched.timeIntervalSince1970) < 10
        let configuredWho = isOurs ? "" : await Self.whoAnswers(port: port, expected: daemon)
        #expect(isOurs, "the report is from a headingd started at \(report.startedAt), this test's at \(launched.timeIntervalSince1970)\n\(configuredWho)")
        // The dropout: exit 3 from the fault on, the fault listed; STALE once stale_after has passed.
        let (faulted, faultedText, _) = try await Self.status(until: 3, ["--url", url])
        let faultedWho = faulted == 3 ? "" : await Self.whoAnswers(port: port, expected: daemon)
        #expect(faulted == 3, "\(faultedText)\n\(faultedWho)")
        #expect(faultedText.contains("simulation  faulted") && faultedText.contains("simulation: deviceLost: simulated dropout"), "\(faultedText)")
        var staleText = ""
        let deadline = ContinuousClock.now + .seconds(5)
        while !staleText.contains("STALE for"), ContinuousClock.now < deadline {
            let (code, text, _) = try await Self.status(["--url", url])
            staleText = text
            #expect(code == 3 || !text.contains("STALE"), "\(text)")
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(staleText.contains("STALE for"), "\(staleText)")
        // Back: exit 0 again.
        #expect(try await Self.status(until: 0, ["--url", url]).0 == 0)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
        // None answering: 69, and why.
        let (gone, _, goneErrors) = try await Self.status(["--url", url])
        #expect(gone == 69 && goneErrors.contains("nothing answers at \(url): Connection refused"), "\(goneErrors)")
        // The service off in the configuration: 69, and what to do.
        try Data("[status]\nenabled = false\n".utf8).write(to: file)
        let (off, _, offErrors) = try await Self.status(["--config", file.path])
        #expect(off == 69 && offErrors.contains("the status service is off in the configuration"), "\(offErrors)")
        // A configuration that cannot be read: 78; a URL that is none: 64.
        try Data("[status]\nenabled = \"perhaps\"\n".utf8).write(to: file)
        #expect(try await Self.status(["--config", file.path]).0 == 78)
        #expect(try await Self.status(["--url", "ftp://127.0.0.1:1"]).0 == 64)
    }

    @Test func statusIsOnTheSignalKListenerWhenThatRuns() async throws {
        let port = GPSFake.freePort()
        let daemon = DaemonProcess(arguments: ["--status", "--signalk", "--signalk-listen", "127.0.0.1:\(port)", "--format", "json"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20)) { output, _ in output.contains("trueHeading") })
        let (status, text, errors) = try await Self.status(until: 0, ["--url", "http://127.0.0.1:\(port)"])
        #expect(status == 0, "\(text) \(errors)")
        let (page, contentType, body) = try await HeadingdMetricsTests.get("http://127.0.0.1:\(port)/")
        #expect(page == 200 && contentType == "text/html; charset=utf-8" && body.contains("<title>headingd</title>"))
        let (discovery, _, _) = try await HeadingdMetricsTests.get("http://127.0.0.1:\(port)/signalk")
        #expect(discovery == 200, "Signal K's routes stay")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
    }

    /// Read-only on either listener: a write to any path — served, unknown, or unknown under a
    /// served one — is 405, never 404 (the router matches paths before methods), and reads are
    /// unchanged.
    @Test(arguments: [false, true]) func everyPathRefusesWritesOnEitherListener(signalK: Bool) async throws {
        let port = GPSFake.freePort()
        let listener = signalK ? ["--signalk", "--signalk-listen", "127.0.0.1:\(port)"] : ["--http-listen", "127.0.0.1:\(port)"]
        let daemon = DaemonProcess(arguments: ["--status", "--metrics", "--format", "json"] + listener)
        try daemon.start()
        let ready = signalK ? "Signal K on 127.0.0.1:\(port)" : "status page on http://127.0.0.1:\(port)/"
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: ready), "\(daemon.errors)")
        let paths = ["/", "/status.json", "/status.js", "/status/none", "/metrics", "/signalk", "/signalk/v1/api/", "/signalk/v9/x", "/no/such"]
        let script = """
            import http.client, sys
            for method in ("GET", "PUT", "POST", "DELETE", "PATCH"):
                for path in sys.argv[2:]:
                    if method == "GET" and path == "/status/events": continue
                    connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
                    connection.request(method, path, body=b"{}" if method != "GET" else None)
                    print(method, path, connection.getresponse().status)
                    connection.close()
            """
        let (status, output, errors) = try await Command.run("/usr/bin/python3", ["-c", script, "\(port)"] + paths)
        #expect(status == 0, "\(errors)")
        let answers = Dictionary(uniqueKeysWithValues: output.split(separator: "\n").map { line -> (String, Int) in
            let fields = line.split(separator: " ")
            return ("\(fields[0]) \(fields[1])", Int(fields[2]) ?? 0)
        })
        for method in ["PUT", "POST", "DELETE", "PATCH"] {
            for path in paths { #expect(answers["\(method) \(path)"] == 405, "\(method) \(path): \(answers["\(method) \(path)"] ?? 0)") }
        }
        let served = ["/", "/status.json", "/status.js", "/metrics"] + (signalK ? ["/signalk", "/signalk/v1/api/"] : [])
        for path in paths { #expect((answers["GET \(path)"] == 200) == served.contains(path), "GET \(path): \(answers["GET \(path)"] ?? 0)") }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
    }

    /// The page, its script, style sheet and icon: small, with the policy on each.
    @Test func thePageIsSmallAndServedUnderItsPolicy() async throws {
        let total = [StatusPage.html, StatusPage.css, StatusPage.javaScript, StatusPage.favicon].map(\.utf8.count).reduce(0, +)
        #expect(total <= 50 * 1024, "the page weighs \(total) bytes")
        #expect(!StatusPage.html.contains("http://") || !StatusPage.html.replacingOccurrences(of: "http://www.w3.org", with: "").contains("http://"))
        #expect(!StatusPage.html.contains("https://") && !StatusPage.javaScript.contains("https://") && !StatusPage.css.contains("url("))
        #expect(!StatusPage.html.contains("<script>") && !StatusPage.html.contains("<style") && !StatusPage.html.contains("style="))
    }

    /// At most 16 event streams; a SIGTERM with all of them open still ends headingd at once.
    @Test func eventStreamsAreBoundedAndASIGTERMEndsThem() async throws {
        let port = GPSFake.freePort()
        let daemon = Self.daemon(port: port, interval: 0, dropout: 1)
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "status page on http://127.0.0.1:\(port)/"))
        var streams: [LineClient] = []
        for _ in 0..<StatusRoutes.maximumEventClients {
            let client = try await LineClient.connect(port: port)
            client.send("GET /status/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await client.readLine()?.hasPrefix("HTTP/1.1 200") == true)
            streams.append(client)
        }
        let refused = try await LineClient.connect(port: port)
        refused.send("GET /status/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await refused.readLine()?.hasPrefix("HTTP/1.1 503") == true)
        // Each stream carries reports.
        var sawReport = false
        for _ in 0..<40 where !sawReport { sawReport = await streams[0].readLine()?.hasPrefix("data: {") == true }
        #expect(sawReport)
        let stopping = ContinuousClock.now
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        let took = (daemon.exitedAt ?? .now) - stopping  // as the reaping thread saw it
        #expect(daemon.terminationStatus == 0, "\(daemon.errors.suffix(1000))")
        #expect(took < .seconds(5), "SIGTERM with \(streams.count) event streams open took \(took)")
        for stream in streams { stream.disconnect() }
        refused.disconnect()
    }

    /// Debian's Chromium, headless: no console error (a CSP violation is one), no request leaves
    /// headingd's origin, the page follows the stream, shows STALE within `stale_after` and a
    /// second and OK again after, and the banner when headingd stops. Screenshots of each state
    /// land in .build/status-page/ (README's comes from there).
    @Test func thePageInChromiumFollowsTheHeadingAndItsStates() async throws {
        let port = GPSFake.freePort()
        let daemon = Self.daemon(port: port, interval: 5, dropout: 2.5)
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "status page on http://127.0.0.1:\(port)/"))
        let shots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/status-page")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let origin = "http://127.0.0.1:\(port)"
        let (status, output, errors) = try await Command.run(
            "/usr/bin/python3", [Self.fixtures.appendingPathComponent("status-page-chromium.py").path, origin + "/", "\(daemon.processIdentifier)", shots.path, "9"]
        )
        #expect(status == 0, "\(errors)")
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        let result = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output) \(errors)")
        #expect((result["consoleErrors"] as? [String]) == [], "\(result["consoleErrors"] ?? "")")
        let requests = result["requests"] as? [String] ?? []
        #expect(!requests.isEmpty && requests.allSatisfy { $0.hasPrefix(origin + "/") }, "\(requests)")
        #expect(Set(requests).isSuperset(of: ["\(origin)/", "\(origin)/status.js", "\(origin)/status.css", "\(origin)/status/events"]))
        let samples = (result["samples"] as? [[String: Any]] ?? []).compactMap { sample -> (t: Double, page: [String: Any], heading: [String: Any], staleAfter: Double)? in
            guard let page = sample["page"] as? [String: Any], let heading = sample["heading"] as? [String: Any] else { return nil }
            return (sample["t"] as? Double ?? 0, page, heading, sample["staleAfter"] as? Double ?? 1)
        }
        #expect(samples.count > 40, "\(samples.count) samples")
        var sawStale = false, sawOK = false, shownHeadings = Set<String>()
        var okSince: Double?
        for sample in samples {
            let state = sample.page["state"] as? String ?? ""
            let age = sample.heading["ageSeconds"] as? Double ?? 0
            let served = sample.heading["state"] as? String
            okSince = served == "ok" ? (okSince ?? sample.t) : nil
            // Stale for longer than stale_after and a second: the page says so.
            if served == "stale", age > sample.staleAfter + 1 {
                #expect(state.hasPrefix("STALE"), "at \(sample.t) s: the heading is \(age) s old and the page shows \(state)")
            }
            // Current for a second: the page says OK, with the heading served (one update of slack).
            if let okSince, sample.t - okSince > 1 {
                #expect(state == "OK", "at \(sample.t) s: headings flow again and the page shows \(state)")
                if let served = sample.heading["trueHeading"] as? Double, let shown = Double(sample.page["true"] as? String ?? "") {
                    let apart = abs((served - shown + 540).truncatingRemainder(dividingBy: 360) - 180)
                    #expect(apart < 10, "at \(sample.t) s: the page shows \(shown)°, headingd gives \(served)°")
                }
            }
            if state.hasPrefix("STALE") { sawStale = true }
            if state == "OK" { sawOK = true }
            shownHeadings.insert(sample.page["true"] as? String ?? "")
            if state == "OK" { #expect((sample.page["label"] as? String ?? "").contains("degrees true"), "the rose's text alternative") }
        }
        #expect(sawStale && sawOK && shownHeadings.count > 10, "stale \(sawStale), ok \(sawOK), \(shownHeadings.count) headings shown")
        let banner = try #require(result["banner"] as? Double, "the banner never showed after SIGTERM")
        #expect(banner < 5)
        for name in ["ok.png", "stale.png", "banner.png"] {
            let data = try Data(contentsOf: shots.appendingPathComponent(name))
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]) && data.count > 10_000, "\(name): \(data.count) bytes")
        }
    }
}
