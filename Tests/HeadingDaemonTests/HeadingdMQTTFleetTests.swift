// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A fleet on one machine: Debian's mosquitto and a shore subscriber in one network namespace,
/// three headingd "vessels" in three others, each joined to the shore by a veth pair. One
/// vessel's link is cut for 60 s while its simulation drops out; the broker restarts and the
/// vessel's headingd restarts meanwhile. The shore sees the vessel go offline, and, once the link
/// is back, every fault change of the outage, in order, none twice. Needs root.
@Suite(.processSlot, .timeLimit(.minutes(20)), .enabled(if: getuid() == 0, "needs root for ip netns"))
struct HeadingdMQTTFleetTests {
    /// The namespaces and links; deleted with the value.
    final class Fleet {
        let tag = "hd\(UInt16.random(in: 0...UInt16.max))"
        var shore: String { "\(tag)-shore" }
        func vessel(_ index: Int) -> String { "\(tag)-v\(index)" }
        /// The shore's end of vessel `index`'s link.
        func shoreLink(_ index: Int) -> String { "\(tag)s\(index)" }

        init(vessels: Int) throws {
            self.vessels = vessels
            try Self.ip(["netns", "add", shore])
            try Self.ip(["-n", shore, "link", "set", "lo", "up"])
            for index in 1...vessels {
                try Self.ip(["netns", "add", vessel(index)])
                try Self.ip(["-n", vessel(index), "link", "set", "lo", "up"])
                try Self.ip(["link", "add", shoreLink(index), "netns", shore, "type", "veth", "peer", "name", "\(tag)v\(index)", "netns", vessel(index)])
                try Self.ip(["-n", shore, "addr", "add", "10.77.\(index).1/24", "dev", shoreLink(index)])
                try Self.ip(["-n", shore, "link", "set", shoreLink(index), "up"])
                try Self.ip(["-n", vessel(index), "addr", "add", "10.77.\(index).2/24", "dev", "\(tag)v\(index)"])
                try Self.ip(["-n", vessel(index), "link", "set", "\(tag)v\(index)", "up"])
            }
        }

        private let vessels: Int

        deinit {
            for index in 1...vessels { try? Self.ip(["netns", "delete", vessel(index)]) }
            try? Self.ip(["netns", "delete", shore])
        }

        /// Cuts or restores vessel `index`'s link, at the shore's end.
        func link(_ index: Int, up: Bool) throws {
            try Self.ip(["-n", shore, "link", "set", shoreLink(index), up ? "up" : "down"])
        }

        static func ip(_ arguments: [String]) throws {
            try HeadingdFirewallTests.DroppingNamespace.run(["/usr/sbin/ip"] + arguments)
        }

        /// The launcher that runs a program in namespace `name`.
        static func inside(_ name: String) -> [String] { ["/usr/sbin/ip", "netns", "exec", name] }
    }

    /// mosquitto in the shore's namespace, on 1883 of every address there, keeping the shore's
    /// persistent session across its restart.
    static func broker(_ fleet: Fleet, directory: URL) async throws -> DaemonProcess {
        let extra = "persistence true\npersistence_location \(directory.path)/\nautosave_interval 1"
        let file = directory.appendingPathComponent("fleet.conf")
        try Data(HeadingdMQTTTests.Broker.configuration(listener: "1883 0.0.0.0", directory: directory, extra: extra).utf8).write(to: file)
        return try await HeadingdMQTTTests.Broker.launch(file, launcher: Fleet.inside(fleet.shore))
    }

    static func vessel(_ fleet: Fleet, _ index: Int, directory: URL) -> DaemonProcess {
        DaemonProcess(
            arguments: [
                "--mqtt", "mqtt://10.77.\(index).1:1883", "--mqtt-prefix", "vessels/v\(index)", "--mqtt-username", "vessel",
                "--mqtt-password-file", directory.appendingPathComponent("vessel-password").path,
                "--mqtt-journal", directory.appendingPathComponent("journal-\(index).sqlite").path, "--mqtt-keepalive", "5",
                "--format", "json", "--dropout-interval", "12", "--dropout-duration", "3", "--seed", "\(index)",
            ],
            launcher: Fleet.inside(fleet.vessel(index))
        )
    }

    @Test func aVesselCutOffForAMinuteLosesNoFaultChange() async throws {
        let fleet = try Fleet(vessels: 3)
        let directory = try HeadingdMQTTTests.Broker.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var broker = try await Self.broker(fleet, directory: directory)
        // The shore: a persistent session (QoS 1), so that the broker keeps what comes while it
        // restarts. Each line: topic, retained flag, payload (after its restart the broker sends
        // the retained messages again, flagged: the state, not a change seen twice).
        let shore = DaemonProcess(
            arguments: Fleet.inside(fleet.shore) + [
                "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-u", "shore", "-P", "shore-secret", "-c", "-i", "shore", "-q", "1",
                "-t", "vessels/+/status", "-t", "vessels/+/notifications/#", "-F", "%t %r %p",
            ],
            executable: "/usr/bin/env"
        )
        try shore.start()
        #expect(await broker.wait(timeout: .seconds(10), untilErrorsContain: "u'shore'"))
        var vessels = (1...3).map { Self.vessel(fleet, $0, directory: directory) }
        var finished: [DaemonProcess] = []
        for vessel in vessels { try vessel.start() }
        for vessel in vessels { #expect(await vessel.wait(timeout: .seconds(20), untilErrorsContain: "MQTT: connected"), "\(vessel.errors)") }
        // Vessel 2 cut off: the shore sees it offline (the will, after 1.5 keepalives).
        try fleet.link(2, up: false)
        let cut = ContinuousClock.now
        #expect(await shore.wait(timeout: .seconds(15)) { output, _ in output.contains("vessels/v2/status 0 {\"state\":\"offline\"") }, "\(shore.output)")
        let offlineAfter = ContinuousClock.now - cut
        // The broker restarts meanwhile (its persistence keeps the shore's session).
        broker.send(SIGTERM)
        #expect(await broker.waitForExit(timeout: .seconds(10)))
        broker = try await Self.broker(fleet, directory: directory)
        // And vessel 2's headingd restarts, its journal kept.
        let fault = "headingd: fault: simulation: deviceLost"
        #expect(await vessels[1].wait(timeout: .seconds(40), untilErrors: { $0.components(separatedBy: fault).count > 1 }))
        vessels[1].send(SIGTERM)
        #expect(await vessels[1].waitForExit(timeout: .seconds(10)))
        finished.append(vessels[1])
        vessels[1] = Self.vessel(fleet, 2, directory: directory)
        try vessels[1].start()
        #expect(await vessels[1].wait(timeout: .seconds(40), untilErrors: { $0.components(separatedBy: fault).count > 1 }))
        // A minute after the cut, the link comes back.
        try await Task.sleep(until: cut + .seconds(60))  // the outage's length: a span, not a synchronisation
        try fleet.link(2, up: true)
        #expect(await vessels[1].wait(timeout: .seconds(90), untilErrorsContain: "MQTT: connected"), "\(vessels[1].errors)")
        for vessel in vessels {
            vessel.send(SIGTERM)
            #expect(await vessel.waitForExit(timeout: .seconds(10)))
            #expect(vessel.terminationStatus == 0, "\(vessel.errors.suffix(2000))")
            finished.append(vessel)
        }
        // Every vessel's fault changes, as logged by its headingd (both of vessel 2's), reach the shore.
        func changes(_ index: Int) -> Int {
            let processes = index == 2 ? [finished[0], finished[2]] : [finished[index == 1 ? 1 : 3]]
            return processes.map(HeadingdMQTTTests.changes).reduce(0, +)
        }
        let expected = (1...3).map(changes)
        #expect(await shore.wait(timeout: .seconds(20)) { output, _ in
            (1...3).allSatisfy { index in output.components(separatedBy: "vessels/v\(index)/notifications/").count - 1 >= expected[index - 1] }
                && (1...3).allSatisfy { output.contains("vessels/v\($0)/status 0 {\"state\":\"offline\"") }
        }, "\(shore.output.suffix(3000))")
        for index in 1...3 {
            var ids: [Int] = []
            for line in shore.outputLines where line.hasPrefix("vessels/v\(index)/notifications/") {
                let parts = line.split(separator: " ", maxSplits: 2)
                guard parts.count == 3, let id = (try? JSONSerialization.jsonObject(with: Data(parts[2].utf8)) as? [String: Any])?["id"] as? Int else { continue }
                // A retained copy of a change already seen is the broker's state, sent again.
                if parts[1] == "1", ids.contains(id) { continue }
                ids.append(id)
            }
            #expect(ids == Array(1...max(1, ids.count)), "vessel \(index): in order, none twice: \(ids)")
            #expect(ids.count == expected[index - 1], "vessel \(index): \(ids.count) notifications for \(expected[index - 1]) fault changes")
        }
        print("fleet: vessel 2 offline \(offlineAfter) after its link was cut; fault changes per vessel \(expected)")
        shore.send(SIGTERM)
        broker.send(SIGTERM)
        _ = await broker.waitForExit(timeout: .seconds(10))
    }
}
