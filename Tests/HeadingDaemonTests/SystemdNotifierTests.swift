// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Clocks
import Foundation
import HeadingKit
import HeadingKitTesting
import ServiceLifecycle
import Testing

@testable import HeadingDaemon

/// The sd_notify protocol, received by a real `AF_UNIX` datagram socket.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct SystemdNotifierTests {
    @Test func watchdogPingsAtHalfTheIntervalOnTheClockWithoutAnyHeading() async throws {
        let listener = try DatagramListener()
        let clock = TestClock()
        let notifier = SystemdNotifier(
            socket: NotifySocket(path: listener.address), center: NotificationCenter(), sourceName: "test",
            watchdogInterval: .milliseconds(500), clock: clock
        )
        let running = Task { await notifier.run() }
        #expect(await listener.messages.wait { $0 == ["READY=1", "STATUS=waiting for the first heading from test"] })
        // Pings at 500, 1000, 1500 and 2000 ms of the clock's time, and not before.
        for expected in 1...4 {
            await clock.advance(by: .milliseconds(501))
            #expect(await listener.messages.wait { $0.filter { $0 == "WATCHDOG=1" }.count == expected })
        }
        await clock.advance(by: .milliseconds(490))  // 2494 ms: the next is due at 2500
        running.cancel()
        await running.value
        #expect(listener.messages.events.filter { $0 == "WATCHDOG=1" }.count == 4)
    }

    @Test func statusFollowsHeadingsFaultsAndRecovery() async throws {
        let listener = try DatagramListener()
        let center = NotificationCenter()
        let clock = TestClock()
        let notifier = SystemdNotifier(
            socket: NotifySocket(path: listener.address), center: center, sourceName: "sim", watchdogInterval: nil, clock: clock
        )
        let running = Task { await notifier.run() }
        defer { running.cancel() }
        #expect(await listener.messages.wait { $0.contains("READY=1") })
        let heading = Heading(trueHeading: 274.07, magneticHeading: nil, timestamp: Date(), source: "sim")
        center.post(Notification.heading(.heading(heading), object: nil))
        #expect(await listener.messages.wait { $0.contains("STATUS=sim: 274.07° true, 0.0 headings/s") })
        center.post(Notification.heading(.fault(HeadingFault(code: .deviceLost, source: "sim", reason: "cable")), object: nil))
        #expect(await listener.messages.wait { $0.contains("STATUS=sim: deviceLost: cable") })
        center.post(Notification.heading(.heading(heading), object: nil))
        #expect(await listener.messages.wait { $0.filter { $0 == "STATUS=sim: 274.07° true, 0.0 headings/s" }.count == 2 })
        // Headings that change nothing send nothing.
        let count = listener.messages.events.count
        center.post(Notification.heading(.heading(heading), object: nil))
        center.post(Notification.heading(.fault(HeadingFault(code: .stale, source: "sim", reason: "x")), object: nil))
        #expect(await listener.messages.wait { $0.count == count + 1 })
        #expect(listener.messages.events.last == "STATUS=sim: stale: x")
        withExtendedLifetime(notifier) {}
    }

    @Test(arguments: [false, true])
    func headingdSendsReadyStatusWatchdogAndStoppingAfterSIGTERM(abstract: Bool) async throws {
        let listener = try DatagramListener(abstract: abstract)
        let daemon = DaemonProcess(
            arguments: ["--rate", "50"], environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "200000"]
        )
        try daemon.start()
        #expect(await listener.messages.wait { $0.filter { $0 == "WATCHDOG=1" }.count >= 3 })
        let messages = listener.messages.events
        #expect(messages.first == "READY=1")
        #expect(messages.contains { $0.hasPrefix("STATUS=simulation: ") && $0.hasSuffix(" headings/s") })
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.terminationStatus == 0)
        #expect(await listener.messages.wait { $0.contains("STOPPING=1") })
    }

    @Test func watchdogIsNotGatedOnSensorData() async throws {
        // No gpsd at all: no heading ever, and still the watchdog pings, with the retry in STATUS.
        let listener = try DatagramListener()
        let daemon = DaemonProcess(
            arguments: ["--source", "gpsd://127.0.0.1:\(GPSFake.freePort())"],
            environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "200000"]
        )
        try daemon.start()
        #expect(await listener.messages.wait { $0.filter { $0 == "WATCHDOG=1" }.count >= 3 })
        #expect(listener.messages.events.contains { $0.hasPrefix("STATUS=") && $0.contains("Connection refused") })
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
    }

    /// Found by the reload soak: a notify socket no one reads fills after 10 messages
    /// (`net.unix.max_dgram_qlen`), and a blocking send then stalled the fault path and the
    /// shutdown (SIGTERM ended headingd only by the stop deadline, 1.5 s later, by the signal).
    /// A manager that stops reading must cost neither headings nor a clean stop.
    @Test func aNotifySocketNoOneReadsStallsNeitherHeadingsNorTheStop() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-notify-\(UUID().uuidString)").path
        defer { unlink(path) }
        let silent = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(silent) }
        var (address, length) = try #require(NotifySocket.socketAddress(path))
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, length) } }
        try #require(bound == 0)
        // A fault and a recovery every 0.3 s, a watchdog tick every 0.1 s: the queue is full within a second.
        let daemon = DaemonProcess(
            arguments: ["--rate", "50", "--format", "json", "--dropout-interval", "0.3", "--dropout-duration", "0.1"],
            environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"]
        )
        try daemon.start()
        #expect(await daemon.wait(timeout: .seconds(10)) { output, _ in output.split(separator: "\n").count >= 50 })
        try await Task.sleep(for: .seconds(2))  // the queue has been full a while: headings must still come
        let before = daemon.output.split(separator: "\n").count
        #expect(await daemon.wait(timeout: .seconds(5)) { output, _ in output.split(separator: "\n").count >= before + 25 })
        let stop = ContinuousClock.now
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        #expect(daemon.exitedNormally && daemon.terminationStatus == 0, "stderr: \(daemon.errors)")
        #expect(!daemon.errors.contains("stopping at once"), "\(daemon.errors)")
        // When the exit was seen by the thread that reaps it, not when a busy pool let this test
        // run again (2.4 s once, on a machine running two suites at once).
        let exited = try #require(daemon.exitedAt)
        // The unit's TimeoutStopSec is 10 s: well within it. (The daemon's own 1.5 s deadline is
        // checked by the ordering fact above, "stopping at once" never said, not by the clock.)
        #expect(exited - stop < .seconds(5), "stopped \(exited - stop) after SIGTERM")
    }

    @Test func withoutNotifySocketNothingIsSent() async throws {
        let listener = try DatagramListener()
        let daemon = try await DaemonProcess.run(["--count", "5", "--rate", "1000"])
        #expect(daemon.terminationStatus == 0)
        #expect(listener.messages.events.isEmpty)
    }
}
