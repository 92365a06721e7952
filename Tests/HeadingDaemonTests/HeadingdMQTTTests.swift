// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import MosquittoClient
import Testing

@testable import HeadingDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The MQTT output against Debian's mosquitto (a broker of the test's own, on a reserved port, with
/// a password file, and with TLS from certificates openssl makes), read by `mosquitto_sub`.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdMQTTTests {
    /// A broker's directory: its configuration, password file, certificates.
    final class Broker: Sendable {
        let directory: URL
        let port: UInt16
        let process: DaemonProcess

        /// Writes the configuration and starts mosquitto; returns once it listens.
        init(port: UInt16 = GPSFake.freePort(), tls: Bool = false, directory: URL? = nil) async throws {
            self.port = port
            let directory = try directory ?? Self.makeDirectory()
            self.directory = directory
            var extra = "persistence false"
            if tls {
                extra += "\ncafile \(directory.path)/ca.pem\ncertfile \(directory.path)/server.pem\nkeyfile \(directory.path)/server.key\ntls_version tlsv1.2"
            }
            let file = directory.appendingPathComponent("mosquitto.conf")
            try Data(Self.configuration(listener: "\(port) 127.0.0.1", directory: directory, extra: extra).utf8).write(to: file)
            process = try await Self.launch(file)
            #expect(process.errors.contains("Opening ipv4 listen socket on port \(port)"), "\(process.errors)")
        }

        /// mosquitto's configuration: `listener`, the users of `directory`'s password file and
        /// no one else, everything but debug logged to standard error; then the `extra` lines.
        static func configuration(listener: String, directory: URL, extra: String) -> String {
            """
            listener \(listener)
            allow_anonymous false
            password_file \(directory.path)/passwords
            log_dest stderr
            log_type error
            log_type warning
            log_type notice
            log_type information
            \(extra)

            """
        }

        /// Starts Debian's mosquitto on `file` (behind `launcher`, such as `ip netns exec NAME`)
        /// and returns once it runs: its " running" line comes after the listeners are open
        /// ("Opening … listen socket" is written before the bind: a client started on that line
        /// alone could be refused and exit).
        static func launch(_ file: URL, launcher: [String] = []) async throws -> DaemonProcess {
            // Through Python, which unblocks SIGHUP first: the test process blocks it (headingd's
            // reload tests), a child inherits the mask, and mosquitto would never reload.
            let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
            let process = DaemonProcess(
                arguments: launcher + ["/usr/bin/python3", "-c", unblocked, "/usr/sbin/mosquitto", "-c", file.path], executable: "/usr/bin/env"
            )
            try process.start()
            #expect(await process.wait(timeout: .seconds(10), untilErrorsContain: " running"), "\(process.errors)")
            return process
        }

        /// A directory with a password file: `vessel` / `sea-secret` (unless `vessel` is false),
        /// `shore` / `shore-secret`; and the vessel's password file.
        static func makeDirectory(vessel: Bool = true) throws -> URL {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-mqtt-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try setUsers(in: directory, vessel: vessel)
            try Data("sea-secret\n".utf8).write(to: directory.appendingPathComponent("vessel-password"))
            return directory
        }

        /// Writes the password file: `shore`, and `vessel` when asked.
        static func setUsers(in directory: URL, vessel: Bool) throws {
            let passwords = directory.appendingPathComponent("passwords").path
            try? FileManager.default.removeItem(atPath: passwords)
            for (user, password) in [("shore", "shore-secret")] + (vessel ? [("vessel", "sea-secret")] : []) {
                let run = Process()
                run.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
                run.arguments = (FileManager.default.fileExists(atPath: passwords) ? ["-b"] : ["-c", "-b"]) + [passwords, user, password]
                try run.run()
                run.waitUntilExit()
            }
        }

        /// Lets the vessel in: its user added, the broker told to read its password file again.
        func admitVessel() throws {
            try Self.setUsers(in: directory, vessel: true)
            process.send(SIGHUP)
        }

        func stop() async {
            process.send(SIGTERM)
            _ = await process.waitForExit(timeout: .seconds(10))
        }
    }

    /// `mosquitto_sub` as the shore: every message under `topic`, one line each, `TOPIC PAYLOAD`.
    static func subscriber(_ broker: Broker, topic: String = "vessels/#", tls: Bool = false) throws -> DaemonProcess {
        var arguments = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-u", "shore", "-P", "shore-secret", "-t", topic, "-v", "-q", "1"]
        if tls { arguments += ["--cafile", broker.directory.appendingPathComponent("ca.pem").path] }
        let subscriber = DaemonProcess(arguments: arguments, executable: "/usr/bin/mosquitto_sub")
        try subscriber.start()
        return subscriber
    }

    /// headingd publishing to `broker` as `vessel`, under `vessels/test`.
    static func vessel(_ broker: Broker, journal: String, extra: [String] = []) -> DaemonProcess {
        vessel(port: broker.port, directory: broker.directory, journal: journal, extra: extra)
    }

    /// headingd publishing to a broker on `port` as `vessel`, its password in `directory`.
    static func vessel(port: UInt16, directory: URL, journal: String, extra: [String] = []) -> DaemonProcess {
        DaemonProcess(arguments: [
            "--mqtt", "mqtt://127.0.0.1:\(port)", "--mqtt-prefix", "vessels/test", "--mqtt-username", "vessel",
            "--mqtt-password-file", directory.appendingPathComponent("vessel-password").path, "--mqtt-journal", journal,
            "--format", "json", "--rate", "10", "--mqtt-rate", "5",
        ] + extra)
    }

    /// The messages a subscriber printed: (topic, payload as JSON, or `nil` for an empty payload).
    static func messages(_ subscriber: DaemonProcess) -> [(topic: String, payload: [String: Any]?)] {
        subscriber.outputLines.compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            guard let topic = parts.first else { return nil }
            let payload = parts.count > 1 ? (try? JSONSerialization.jsonObject(with: Data(parts[1].utf8))) as? [String: Any] : nil
            return (String(topic), payload)
        }
    }

    /// The fault notifications a subscriber saw: (id, state), in order.
    static func notifications(_ subscriber: DaemonProcess) -> [(id: Int, state: String)] {
        messages(subscriber).filter { $0.topic.hasPrefix("vessels/test/notifications/navigation/heading/") }.compactMap { message in
            guard let id = message.payload?["id"] as? Int, let state = message.payload?["state"] as? String else { return nil }
            return (id, state)
        }
    }

    @Test func headingsFaultsAndStatusReachTheBrokerAsTheLogSaysThem() async throws {
        let broker = try await Broker()
        let subscriber = try Self.subscriber(broker)
        #expect(
            await broker.process.wait(timeout: .seconds(10), untilErrorsContain: "u'shore'"),
            "the shore is subscribed first; broker: \(broker.process.errors.suffix(2000)); mosquitto_sub: \(subscriber.errors.suffix(500))"
        )
        let journal = broker.directory.appendingPathComponent("journal.sqlite").path
        let daemon = Self.vessel(broker, journal: journal, extra: ["--dropout-interval", "1.5", "--dropout-duration", "0.7"])
        try daemon.start()
        let fault = "headingd: fault: simulation: deviceLost"
        #expect(await daemon.wait(timeout: .seconds(20), untilErrors: { $0.components(separatedBy: fault).count > 3 }), "\(daemon.errors)")
        // The last change's notification is out once the broker has it: wait for its id.
        let changes = daemon.errors.components(separatedBy: "headingd: fault: simulation: deviceLost").count - 1
            + daemon.errors.components(separatedBy: "headingd: notice: simulation: recovered").count - 1
        #expect(await subscriber.wait(timeout: .seconds(10)) { output, _ in
            output.components(separatedBy: "/notifications/navigation/heading/deviceLost").count > changes
        }, "\(subscriber.output)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0, "\(daemon.errors)")
        #expect(await subscriber.wait(timeout: .seconds(10)) { output, _ in output.contains("\"state\":\"offline\"") })
        let messages = Self.messages(subscriber)
        // Status: online first, offline on the clean stop (the will is not sent then).
        let statuses = messages.filter { $0.topic == "vessels/test/status" }.compactMap { $0.payload?["state"] as? String }
        #expect(statuses.first == "online" && statuses.last == "offline", "\(statuses)")
        // Every heading value published is one the log printed (radians, to the printed precision).
        let printed = Set(daemon.outputLines.compactMap { line -> Double? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["trueHeading"] as? Double
        }.map { ($0 * 100).rounded() / 100 })
        let published = messages.filter { $0.topic == "vessels/test/navigation/headingTrue" }.compactMap { $0.payload?["value"] as? Double }
        #expect(!published.isEmpty)
        for radians in published {
            let degrees = ((radians * 180 / .pi) * 100).rounded() / 100
            #expect(printed.contains(degrees) || printed.contains { abs($0 - degrees) <= 0.011 }, "\(degrees)° was never printed")
        }
        // The rate of turn too, in radians a second, as the Signal K output estimates it.
        let rates = messages.filter { $0.topic == "vessels/test/navigation/rateOfTurn" }.compactMap { $0.payload?["value"] as? Double }
        #expect(!rates.isEmpty && rates.allSatisfy { abs($0) < 1 }, "\(rates)")
        // At most rate a second: 5 Hz here, over the run.
        #expect(published.count <= 65, "\(published.count) headings published")  // 5 Hz × 12 s, and 5
        // Each fault change, once, in order: alarm and normal in turn, ids counting up from 1.
        let notifications = Self.notifications(subscriber)
        #expect(notifications.map(\.id) == Array(1..<(notifications.count + 1)), "\(notifications)")
        #expect(notifications.enumerated().allSatisfy { $0.element.state == ($0.offset % 2 == 0 ? "alarm" : "normal") }, "\(notifications)")
        #expect(notifications.count >= changes, "\(notifications.count) notifications for \(changes) changes")
        subscriber.send(SIGTERM)
        await broker.stop()
    }

    /// A stale heading's topics are emptied (an empty retained message), so that a late
    /// subscriber sees no stale heading; the next heading fills them again.
    @Test func aStaleHeadingIsClearedFromTheBroker() async throws {
        let broker = try await Broker()
        let subscriber = try Self.subscriber(broker, topic: "vessels/test/navigation/headingTrue")
        #expect(await broker.process.wait(timeout: .seconds(10), untilErrorsContain: "u'shore'"))
        let journal = broker.directory.appendingPathComponent("journal.sqlite").path
        let daemon = Self.vessel(broker, journal: journal, extra: ["--stale-after", "0.5", "--dropout-interval", "2", "--dropout-duration", "1.5"])
        try daemon.start()
        // A value, then the empty message, then a value again.
        #expect(await subscriber.wait(timeout: .seconds(20)) { output, _ in
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map { $0.split(separator: " ", maxSplits: 1) }
            guard let cleared = lines.firstIndex(where: { $0.count == 1 || $0.last?.isEmpty == true || $0.last == "(null)" }) else { return false }
            return lines[..<cleared].contains { $0.count == 2 && $0[1].hasPrefix("{") } && lines[cleared...].contains { $0.count == 2 && $0[1].hasPrefix("{") }
        }, "\(subscriber.output)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        subscriber.send(SIGTERM)
        await broker.stop()
    }

    /// A peer sending garbage: 2,000 malformed lines in a row are one change (alert), the next
    /// heading another (normal): not 2,000 journal writes on the heading path.
    @Test func aFloodOfMalformedLinesIsOneChangeNotOneMessageEach() async throws {
        let broker = try await Broker()
        let subscriber = try Self.subscriber(broker, topic: "vessels/test/notifications/#")
        #expect(await broker.process.wait(timeout: .seconds(10), untilErrorsContain: "u'shore'"))
        let feed = try FeedServer()
        let journal = broker.directory.appendingPathComponent("journal.sqlite").path
        let daemon = Self.vessel(broker, journal: journal, extra: ["--source", "tcp://127.0.0.1:\(feed.port)", "--stale-after", "3600"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "MQTT: connected"), "\(daemon.errors)")
        let connection = try #require(await feed.accept())
        connection.send(bytes: Array((String(repeating: Sentence.make("HEHDT,abc,T"), count: 2000) + Sentence.make("HEHDT,10.0,T")).utf8))
        #expect(await subscriber.wait(timeout: .seconds(20)) { output, _ in output.contains("\"state\":\"normal\"") }, "\(subscriber.output)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        let states = Self.notifications(subscriber).map(\.state)
        #expect(states == ["alert", "normal"], "\(states)")
        // Logged as the flood's first line (and a summary if 10 s pass), not 2,000 lines: the metrics count each.
        #expect(daemon.errors.components(separatedBy: "malformedInput").count - 1 < 5, "\(daemon.errors.suffix(2000))")
        subscriber.send(SIGTERM)
        await broker.stop()
    }

    /// A reload that changes the MQTT settings replaces the client: the old one stops first, so
    /// the retained status after it is the new one's online, not the old one's offline.
    @Test func aReloadThatChangesTheOutputLeavesItOnline() async throws {
        let broker = try await Broker()
        let file = broker.directory.appendingPathComponent("headingd.toml")
        func write(rate: Double) throws {
            let toml = """
                [outputs.mqtt]
                broker = "mqtt://127.0.0.1:\(broker.port)"
                prefix = "vessels/test"
                username = "vessel"
                password_file = "\(broker.directory.appendingPathComponent("vessel-password").path)"
                journal = "\(broker.directory.appendingPathComponent("journal.sqlite").path)"
                rate = \(rate)
                """
            try Data(toml.utf8).write(to: file)
        }
        try write(rate: 1)
        let daemon = DaemonProcess(arguments: ["--config", file.path])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "MQTT: connected"), "\(daemon.errors)")
        try write(rate: 2)
        daemon.send(SIGHUP)
        #expect(await daemon.wait(timeout: .seconds(20), untilErrors: { $0.components(separatedBy: "MQTT: connected").count > 2 }), "\(daemon.errors)")
        // A late subscriber gets the retained status.
        let subscriber = try Self.subscriber(broker, topic: "vessels/test/status")
        #expect(await subscriber.wait(timeout: .seconds(10)) { output, _ in output.contains("\"state\":") }, "\(subscriber.output)")
        #expect(subscriber.output.contains("\"state\":\"online\""), "\(subscriber.output)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        subscriber.send(SIGTERM)
        await broker.stop()
    }

    @Test func aKilledHeadingdIsOfflineThroughItsWill() async throws {
        let broker = try await Broker()
        let journal = broker.directory.appendingPathComponent("journal.sqlite").path
        let daemon = Self.vessel(broker, journal: journal, extra: ["--mqtt-keepalive", "5"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "MQTT: connected to"), "\(daemon.errors)")
        let subscriber = try Self.subscriber(broker, topic: "vessels/test/status")
        // The retained status first: online.
        #expect(await subscriber.wait(timeout: .seconds(10)) { output, _ in output.contains("\"state\":\"online\"") }, "\(subscriber.output)")
        let killed = ContinuousClock.now
        daemon.send(SIGKILL)
        #expect(await subscriber.wait(timeout: .seconds(10)) { output, _ in output.contains("\"state\":\"offline\"") }, "\(subscriber.output)")
        let took = ContinuousClock.now - killed
        // The kernel closes a killed process's connection: the broker sees it end without a
        // DISCONNECT and sends the will at once (0.1 s here). A link that goes silent instead is
        // the keepalive's, 1.5 × 5 s: the fleet test's cut link.
        #expect(took < .seconds(5), "the will came \(took) after SIGKILL")
        subscriber.send(SIGTERM)
        await broker.stop()
    }

    /// The broker is down while faults come and go (and headingd restarts meanwhile, its journal
    /// kept), then up but refusing the vessel until the shore has subscribed: every change
    /// arrives, in order, once per id.
    @Test func faultChangesWhileTheBrokerIsDownArriveOnceItIsUp() async throws {
        let directory = try Broker.makeDirectory(vessel: false)
        let port = GPSFake.freePort()
        let journal = directory.appendingPathComponent("journal.sqlite").path
        let dropouts = ["--dropout-interval", "1", "--dropout-duration", "0.5"]
        var daemon = Self.vessel(port: port, directory: directory, journal: journal, extra: dropouts)
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "MQTT: mqtt://127.0.0.1:\(port): "), "\(daemon.errors)")
        let fault = "headingd: fault: simulation: deviceLost"
        #expect(await daemon.wait(timeout: .seconds(20), untilErrors: { $0.components(separatedBy: fault).count > 2 }))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0, "\(daemon.errors)")
        var changes = Self.changes(daemon)
        // Restarted, the broker still down: its journal holds the first run's changes, and more come.
        daemon = Self.vessel(port: port, directory: directory, journal: journal, extra: dropouts)
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrors: { $0.components(separatedBy: fault).count > 1 }))
        // The broker comes up refusing the vessel; the shore subscribes; then the vessel is let in.
        let broker = try await Broker(port: port, directory: directory)
        let subscriber = try Self.subscriber(broker, topic: "vessels/test/notifications/#")
        #expect(await broker.process.wait(timeout: .seconds(10), untilErrorsContain: "u'shore'"))
        #expect(await daemon.wait(timeout: .seconds(90), untilErrorsContain: "the broker refused the connection"), "\(daemon.errors)")
        try broker.admitVessel()
        #expect(await daemon.wait(timeout: .seconds(90), untilErrorsContain: "MQTT: connected to"), "\(daemon.errors.suffix(3000)) broker: \(broker.process.errors.suffix(3000))")
        // The journal drains while headingd runs: the backlog arrives before it is stopped (a stop
        // gives the broker 0.4 s to acknowledge; what it does not is sent at the next start, which
        // a busy machine showed by 0 of 7 arriving when SIGTERM followed the connection at once).
        let backlog = changes + Self.changes(daemon)
        #expect(await subscriber.wait(timeout: .seconds(30)) { output, _ in
            output.components(separatedBy: "\"id\":").count - 1 >= backlog
        }, "\(subscriber.output)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        changes += Self.changes(daemon)
        let all = changes
        #expect(await subscriber.wait(timeout: .seconds(10)) { output, _ in
            output.components(separatedBy: "\"id\":").count - 1 >= all
        }, "\(subscriber.output)")
        let notifications = Self.notifications(subscriber)
        #expect(notifications.map(\.id) == Array(1...max(1, notifications.count)), "in order, none twice: \(notifications)")
        #expect(notifications.count == changes, "\(notifications.count) notifications for \(changes) fault changes")
        subscriber.send(SIGTERM)
        await broker.stop()
    }

    /// A backlog of six replay windows (a vessel long offline) goes out as acknowledgements make
    /// room, all of it, in order, with the changes that come meanwhile behind it.
    @Test func aBacklogLargerThanTheReplayWindowArrivesWholeAndInOrder() async throws {
        let broker = try await Broker()
        let journal = broker.directory.appendingPathComponent("journal.sqlite").path
        let backlog = 6 * MQTTOutput.replayWindow
        do {
            let store = try MQTTJournal(path: journal)
            for _ in 0..<backlog {
                _ = try store.append { id in
                    MosquittoClient.Message(
                        topic: "vessels/test/notifications/navigation/heading/deviceLost",
                        payload: Array("{\"id\":\(id),\"state\":\"alarm\",\"message\":\"from the backlog\"}".utf8), qos: 1, retain: true
                    )
                }
            }
        }
        let subscriber = try Self.subscriber(broker, topic: "vessels/test/notifications/#")
        #expect(await broker.process.wait(timeout: .seconds(10), untilErrorsContain: "u'shore'"))
        let daemon = Self.vessel(broker, journal: journal, extra: ["--dropout-interval", "1", "--dropout-duration", "0.5"])
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: "MQTT: connected to"), "\(daemon.errors)")
        // The backlog and at least two changes of this run's own.
        #expect(await subscriber.wait(timeout: .seconds(60)) { output, _ in
            output.components(separatedBy: "\"id\":").count - 1 >= backlog + 2
        }, "\(subscriber.output.suffix(2000))")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        let ids = Self.notifications(subscriber).map(\.id)
        #expect(ids.count >= backlog + 2 && ids == Array(1...max(1, ids.count)), "\(ids.count) ids; out of order: \(zip(ids, 1...).filter { $0 != $1 }.prefix(5))")
        subscriber.send(SIGTERM)
        await broker.stop()
    }

    /// Fault changes headingd logged: each fault, each recovery.
    static func changes(_ daemon: DaemonProcess) -> Int {
        daemon.errors.components(separatedBy: "headingd: fault: simulation: deviceLost").count - 1
            + daemon.errors.components(separatedBy: "headingd: notice: simulation: recovered").count - 1
    }

    @Test func tlsWithTheRightCAConnectsAndTheWrongOneDoesNot() async throws {
        let directory = try Broker.makeDirectory()
        try Self.makeCertificates(in: directory)
        let broker = try await Broker(tls: true, directory: directory)
        let journal = directory.appendingPathComponent("journal.sqlite").path
        let base = [
            "--mqtt", "mqtts://127.0.0.1:\(broker.port)", "--mqtt-prefix", "vessels/test", "--mqtt-username", "vessel",
            "--mqtt-password-file", directory.appendingPathComponent("vessel-password").path, "--mqtt-journal", journal,
        ]
        let good = DaemonProcess(arguments: base + ["--mqtt-ca-file", directory.appendingPathComponent("ca.pem").path])
        try good.start()
        #expect(await good.wait(timeout: .seconds(20), untilErrorsContain: "MQTT: connected to mqtts://127.0.0.1:\(broker.port)"), "\(good.errors)")
        good.send(SIGTERM)
        #expect(await good.waitForExit(timeout: .seconds(10)))
        let bad = DaemonProcess(arguments: base + ["--mqtt-ca-file", directory.appendingPathComponent("other-ca.pem").path])
        try bad.start()
        #expect(await bad.wait(timeout: .seconds(20), untilErrorsContain: "MQTT: mqtts://127.0.0.1:\(broker.port): "), "\(bad.errors)")
        #expect(!bad.errors.contains("MQTT: connected"))
        bad.send(SIGTERM)
        #expect(await bad.waitForExit(timeout: .seconds(10)))
        #expect(bad.terminationStatus == 0, "an unreachable broker never stops headings: \(bad.errors)")
        // mqtts without a CA file is refused at start, with what to do.
        let missing = try await DaemonProcess.run(Array(base.dropLast(2)) + ["--mqtt-journal", journal, "--count", "1"])
        #expect(missing.terminationStatus == 69 && missing.errors.contains("needs ca_file"), "\(missing.errors)")
        await broker.stop()
    }

    /// A CA, a server certificate for 127.0.0.1 signed by it, and another CA that signs nothing here.
    static func makeCertificates(in directory: URL) throws {
        let script = """
            set -e
            cd "$1"
            openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=headingd-test-ca -keyout ca.key -out ca.pem 2>/dev/null
            openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca -keyout other-ca.key -out other-ca.pem 2>/dev/null
            openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr 2>/dev/null
            printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out server.pem 2>/dev/null
            chmod 644 server.key
            """
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/bin/sh")
        run.arguments = ["-c", script, "sh", directory.path]
        try run.run()
        run.waitUntilExit()
        #expect(run.terminationStatus == 0)
    }
}
