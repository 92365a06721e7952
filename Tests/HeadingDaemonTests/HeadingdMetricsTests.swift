// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

@testable import HeadingDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `/metrics`, read by Python's HTTP client, checked by Debian's promtool, and scraped by Debian's
/// Prometheus 2.42, whose query API gives back what headingd printed.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdMetricsTests {
    /// An HTTP GET by a client no one here wrote: the status, the `Content-Type` and the body.
    static func get(_ url: String) async throws -> (status: Int, contentType: String, body: String) {
        let script = """
            import sys, urllib.request, urllib.error
            try:
                response = urllib.request.urlopen(sys.argv[1], timeout=10)
                status, headers, body = response.status, response.headers, response.read()
            except urllib.error.HTTPError as error:
                status, headers, body = error.code, error.headers, error.read()
            sys.stdout.write("%d\\n%s\\n" % (status, headers.get("Content-Type", "")))
            sys.stdout.write(body.decode())
            """
        let (status, output, errors) = try await Command.run("/usr/bin/python3", ["-c", script, url])
        guard status == 0 else { throw POSIXError(.ECONNREFUSED, userInfo: [NSLocalizedDescriptionKey: errors]) }
        let lines = output.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        return (Int(lines[0]) ?? 0, String(lines[1]), lines.count > 2 ? String(lines[2]) : "")
    }

    /// The samples of an exposition, by name and labels as written (`headingd_headings_total{source="simulation"}`).
    static func samples(_ exposition: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    /// The simulation drops out every second: what /metrics counts lies between what headingd had
    /// printed before the request and after it.
    @Test func metricsCountWhatHeadingdPrintedAndPromtoolFindsNothingWrong() async throws {
        let port = GPSFake.freePort(), nmeaPort = GPSFake.freePort(), udpPort = GPSFake.freePort()
        let daemon = DaemonProcess(arguments: [
            "--rate", "20", "--format", "json", "--dropout-interval", "1", "--dropout-duration", "0.3",
            "--metrics", "--http-listen", "127.0.0.1:\(port)", "--nmea-tcp", "127.0.0.1:\(nmeaPort)", "--nmea-sentences", "HDT",
            "--nmea-rate", "0", "--nmea-udp", "127.0.0.1:\(udpPort)", "--nmea-udp-rate", "0",
        ])
        try daemon.start()
        let fault = "headingd: fault: simulation: deviceLost"
        #expect(await daemon.wait(timeout: .seconds(20), untilErrors: { $0.components(separatedBy: fault).count > 2 }), "\(daemon.errors)")
        let headingsBefore = daemon.outputLines.count
        let faultsBefore = daemon.errors.components(separatedBy: fault).count - 1
        let asked = ContinuousClock.now
        let (status, contentType, body) = try await Self.get("http://127.0.0.1:\(port)/metrics")
        let seconds = Double((ContinuousClock.now - asked).components.seconds) + 1
        #expect(status == 200)
        #expect(contentType == "text/plain; version=0.0.4; charset=utf-8")
        let samples = Self.samples(body)
        #expect(samples["headingd_build_info{version=\"\(Headingd.version)\"}"] == 1)
        let headings = try #require(samples["headingd_headings_total{source=\"simulation\"}"], "\(body)")
        let faults = try #require(samples["headingd_faults_total{source=\"simulation\",code=\"deviceLost\"}"], "\(body)")
        // Every heading and fault counted reaches stdout and stderr (the pipes deliver them a little
        // after the count): awaited, not a fixed slack. And none counted that was not made: at most
        // what 20 Hz (and a dropout a second) made while the request was answered, and a second more.
        #expect(await daemon.wait(timeout: .seconds(10)) { output, _ in output.utf8.lazy.filter { $0 == 10 }.count >= Int(headings) }, "\(headings) counted")
        #expect(await daemon.wait(timeout: .seconds(10), untilErrors: { $0.components(separatedBy: fault).count - 1 >= Int(faults) }), "\(faults) counted")
        let headingsAfter = headingsBefore + Int(seconds * 20) + 20
        let faultsAfter = faultsBefore + Int(seconds) + 1
        #expect(Double(headingsBefore) <= headings && headings <= Double(headingsAfter), "\(headingsBefore) ≤ \(headings) ≤ \(headingsAfter)")
        #expect(Double(faultsBefore) <= faults && faults <= Double(faultsAfter), "\(faultsBefore) ≤ \(faults) ≤ \(faultsAfter)")
        #expect(samples["headingd_source_selected{source=\"simulation\"}"] == 1)
        // One datagram a heading to the one UDP target (nothing reads it; UDP does not know), and
        // a few more around faults: a THS marked V at a fault (the source's and the processor's)
        // and once a second until the next heading.
        let datagrams = try #require(samples["headingd_output_messages_total{output=\"nmea0183_udp\"}"], "\(body)")
        #expect(
            datagrams >= Double(headingsBefore) && datagrams <= Double(headingsAfter + 2 * faultsAfter + 2),
            "\(datagrams) datagrams, \(headingsBefore)…\(headingsAfter) headings, \(faultsAfter) faults"
        )
        #expect(samples["headingd_reloads_total{result=\"success\"}"] == 0)
        let lastHeading = try #require(samples["headingd_source_last_heading_timestamp_seconds{source=\"simulation\"}"])
        #expect(abs(lastHeading - Date().timeIntervalSince1970) < 30)
        let degrees = try #require(samples["headingd_heading_true_degrees"])
        #expect((0..<360).contains(degrees))
        // Prometheus' own linter.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-metrics-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(body.utf8).write(to: file)
        let (lint, lintOutput, lintErrors) = try await Command.run("/bin/sh", ["-c", "promtool check metrics < '\(file.path)'"])
        #expect(lint == 0 && lintOutput.isEmpty && lintErrors.isEmpty, "promtool: \(lintOutput) \(lintErrors)")
        // An output's clients and messages: an NMEA 0183 TCP client that reads.
        let plotter = try await LineClient.connect(port: nmeaPort)
        var read = 0
        while read < 10, await plotter.readLine(timeout: .seconds(5)) != nil { read += 1 }
        let withClient = Self.samples(try await Self.get("http://127.0.0.1:\(port)/metrics").body)
        #expect(withClient["headingd_output_clients{output=\"nmea0183_tcp\"}"] == 1, "\(withClient)")
        #expect((withClient["headingd_output_messages_total{output=\"nmea0183_tcp\"}"] ?? 0) >= Double(read))
        plotter.disconnect()
        var clients = 1.0
        for _ in 0..<50 where clients != 0 {  // the server sees the close a moment later: polled, bounded
            clients = Self.samples(try await Self.get("http://127.0.0.1:\(port)/metrics").body)["headingd_output_clients{output=\"nmea0183_tcp\"}"] ?? 1
            if clients != 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(clients == 0)
        // A reload is counted; a refused one too.
        daemon.send(SIGHUP)
        #expect(await daemon.wait(untilErrorsContain: "headingd: SIGHUP: configuration reloaded"))
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "HTTP listener on 127.0.0.1:\(port): kept"), "\(daemon.errors)")
        let reloaded = Self.samples(try await Self.get("http://127.0.0.1:\(port)/metrics").body)
        #expect(reloaded["headingd_reloads_total{result=\"success\"}"] == 1)
        #expect((reloaded["headingd_headings_total{source=\"simulation\"}"] ?? 0) >= headings, "counters survive a reload")
        // Read-only.
        #expect(try await Self.get("http://127.0.0.1:\(port)/nothing").status == 404)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
    }

    /// A live TCP feed of known lines: each line counted under its result, and each heading's
    /// latency (bytes read → the center) observed once.
    @Test func linesAreCountedByResultAndLiveHeadingsTimed() async throws {
        let port = GPSFake.freePort()
        let server = try FeedServer()
        let source = "tcp://127.0.0.1:\(server.port)"
        let daemon = DaemonProcess(arguments: [
            "--source", source, "--format", "json", "--stale-after", "3600", "--metrics", "--http-listen", "127.0.0.1:\(port)",
        ])
        try daemon.start()
        let connection = try #require(await server.accept())
        // Three headings, one at a time: three notifications, three latencies.
        for (index, heading) in ["10.0", "11.0", "12.0"].enumerated() {
            connection.send(bytes: Array(Sentence.make("HEHDT,\(heading),T").utf8))
            #expect(await daemon.wait(timeout: .seconds(10)) { output, _ in output.components(separatedBy: "trueHeading").count > index + 1 })
        }
        let wrongChecksum = Sentence.make("HEHDT,13.0,T").replacingOccurrences(of: "*", with: "*0").prefix(15) + "*00\r\n"
        let mixed = [
            Sentence.make("GPGSV,1,1,00"),  // a sentence headingd does not use: ok
            String(wrongChecksum),  // checksum
            Sentence.make("HEHDT,abc,T"),  // malformed
            Sentence.make("HEHDT,400.0,T"),  // out of range
        ]
        connection.send(bytes: Array(mixed.joined().utf8))
        #expect(await daemon.wait(timeout: .seconds(10), untilErrors: { $0.contains("outOfRange") }), "\(daemon.errors)")
        let (_, _, body) = try await Self.get("http://127.0.0.1:\(port)/metrics")
        let samples = Self.samples(body)
        func lines(_ result: String) -> Double? { samples["headingd_source_lines_total{source=\"\(source)\",result=\"\(result)\"}"] }
        #expect(lines("ok") == 4 && lines("checksum") == 1 && lines("malformed") == 1 && lines("out_of_range") == 1 && lines("unsupported") == 0, "\(body)")
        #expect(samples["headingd_heading_latency_seconds_count"] == 3, "\(body)")
        let sum = try #require(samples["headingd_heading_latency_seconds_sum"])
        #expect(sum > 0 && sum < 3, "three latencies add up to \(sum) s")
        #expect(samples["headingd_heading_latency_seconds_bucket{le=\"+Inf\"}"] == 3, "\(body)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
    }

    @Test func withSignalKOnMetricsShareItsListenerAndAreOffByDefault() async throws {
        let port = GPSFake.freePort()
        let daemon = DaemonProcess(arguments: ["--rate", "20", "--signalk", "--signalk-listen", "127.0.0.1:\(port)", "--metrics"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(10), untilErrorsContain: "Signal K on 127.0.0.1:\(port)"), "\(daemon.errors)")
        let (status, contentType, body) = try await Self.get("http://127.0.0.1:\(port)/metrics")
        #expect(status == 200 && contentType.hasPrefix("text/plain; version=0.0.4"))
        #expect(Self.samples(body)["headingd_build_info{version=\"\(Headingd.version)\"}"] == 1)
        #expect(!daemon.errors.contains("metrics on "), "no listener of its own: \(daemon.errors)")
        // A stream client, counted while it is connected, with the deltas written to it.
        async let stream = offCooperativePool { try HeadingdSignalKTests.runClient("kept", port: port, seconds: 3) }
        var connected: [String: Double] = [:]
        for _ in 0..<50 where connected["headingd_output_clients{output=\"signalk\"}"] != 1 {  // polled, bounded
            try await Task.sleep(for: .milliseconds(50))
            connected = Self.samples(try await Self.get("http://127.0.0.1:\(port)/metrics").body)
        }
        #expect(connected["headingd_output_clients{output=\"signalk\"}"] == 1, "\(connected)")
        let (clientStatus, clientOutput, _) = try await stream
        #expect(clientStatus == 0)
        let after = Self.samples(try await Self.get("http://127.0.0.1:\(port)/metrics").body)
        let deltas = (try? JSONSerialization.jsonObject(with: Data((clientOutput.split(separator: "\n").last ?? "").utf8)) as? [String: Any])?["deltas"] as? Int ?? 0
        // Written: the hello and every delta the client read, at least.
        #expect((after["headingd_output_messages_total{output=\"signalk\"}"] ?? 0) >= Double(deltas), "\(deltas) deltas read: \(after)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))

        let off = DaemonProcess(arguments: ["--rate", "20", "--signalk", "--signalk-listen", "127.0.0.1:\(port)"])
        try off.start()
        #expect(await off.wait(timeout: .seconds(10), untilErrorsContain: "Signal K on 127.0.0.1:\(port)"), "\(off.errors)")
        #expect(try await Self.get("http://127.0.0.1:\(port)/metrics").status == 404)
        off.send(SIGTERM)
        #expect(await off.waitForExit(timeout: .seconds(10)))
    }

    static let shippedRules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/prometheus/headingd-alerts.yml")

    @Test func theShippedAlertRulesAndScrapeConfigurationLoad() async throws {
        let (status, output, errors) = try await Command.run("/usr/bin/promtool", ["check", "rules", Self.shippedRules.path])
        #expect(status == 0 && output.contains("SUCCESS: 2 rules found"), "\(output) \(errors)")
        let directory = Self.shippedRules.deletingLastPathComponent()
        let config = try await Command.run("/usr/bin/promtool", ["check", "config", "prometheus-scrape.yml"], in: directory)
        #expect(config.0 == 0, "\(config.1) \(config.2)")
    }

    /// A real Prometheus scrapes headingd every 0.5 s with the shipped alert rules (their `for:`
    /// shortened to 1 s); its query API gives back the headings and faults headingd printed, the
    /// scrape target is up, and "source down" fires during a dropout.
    @Test func prometheusScrapesHeadingdAndTheSourceDownAlertFires() async throws {
        let port = GPSFake.freePort(), prometheusPort = GPSFake.freePort()
        let daemon = DaemonProcess(arguments: [
            "--rate", "20", "--format", "json", "--dropout-interval", "3", "--dropout-duration", "2",
            "--metrics", "--http-listen", "127.0.0.1:\(port)",
        ])
        try daemon.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = directory.appendingPathComponent("prometheus.yml")
        let rules = try String(contentsOf: Self.shippedRules, encoding: .utf8).replacingOccurrences(of: "for: 60s", with: "for: 1s")
        try Data(rules.utf8).write(to: directory.appendingPathComponent("headingd-alerts.yml"))
        try Data("""
            global:
              scrape_interval: 500ms
              scrape_timeout: 400ms
              evaluation_interval: 500ms
            rule_files:
              - \(directory.appendingPathComponent("headingd-alerts.yml").path)
            scrape_configs:
              - job_name: headingd
                static_configs:
                  - targets: ["127.0.0.1:\(port)"]

            """.utf8).write(to: configuration)
        let prometheus = Process()
        prometheus.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus")
        prometheus.arguments = [
            "--config.file=\(configuration.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(prometheusPort)",
        ]
        prometheus.standardOutput = FileHandle.nullDevice
        prometheus.standardError = FileHandle.nullDevice
        try prometheus.run()
        defer {
            prometheus.terminate()
            prometheus.waitUntilExit()
        }
        // Waits (bounded) until the alert fires in a dropout, then compares.
        let fault = "headingd: fault: simulation: deviceLost"
        var faults = 0.0, headings = 0.0, up = 0.0, firing = 0.0
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline {
            firing = try await Self.query("ALERTS{alertname=\"HeadingSourceDown\",alertstate=\"firing\",source=\"simulation\"}", port: prometheusPort) ?? 0
            if firing == 1 {
                faults = try await Self.query("headingd_faults_total", port: prometheusPort) ?? 0
                headings = try await Self.query("headingd_headings_total", port: prometheusPort) ?? 0
                up = try await Self.query("up{job=\"headingd\"}", port: prometheusPort) ?? 0
                break
            }
            try await Task.sleep(for: .milliseconds(500))  // Prometheus scrapes on its own clock: polled, bounded
        }
        #expect(firing == 1, "HeadingSourceDown never fired; stderr: \(daemon.errors)")
        let printedFaults = Double(daemon.errors.components(separatedBy: fault).count - 1)
        let printedHeadings = Double(daemon.outputLines.count)
        #expect(faults >= 1 && faults <= printedFaults, "Prometheus: \(faults) faults; headingd printed \(printedFaults)")
        #expect(headings >= 20 && headings <= printedHeadings, "Prometheus: \(headings) headings; headingd printed \(printedHeadings)")
        #expect(up == 1)
        print("Prometheus scraped: \(headings) headings (headingd had printed \(printedHeadings)), \(faults) faults (\(printedFaults) printed)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
    }

    /// A PromQL instant query through Prometheus' HTTP API: the first sample's value, if any.
    static func query(_ expression: String, port: UInt16) async throws -> Double? {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
        guard let (status, _, body) = try? await get("http://127.0.0.1:\(port)/api/v1/query?query=\(encoded)"), status == 200,
            let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let data = json["data"] as? [String: Any], let result = data["result"] as? [[String: Any]],
            let value = result.first?["value"] as? [Any], value.count == 2, let text = value[1] as? String
        else { return nil }
        return Double(text)
    }
}
