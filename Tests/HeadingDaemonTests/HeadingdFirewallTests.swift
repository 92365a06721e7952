// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// headingd behind a firewall that drops packets, in a network namespace of its own with an
/// nftables drop rule for gpsd's port: a connection attempt is never answered, which `connect(2)`
/// alone would wait out for over two minutes. Needs root (the test command runs as root).
@Suite(.processSlot, .timeLimit(.minutes(20)), .enabled(if: getuid() == 0, "needs root for ip netns and nft"))
struct HeadingdFirewallTests {
    /// A network namespace with loopback up and TCP to `port` dropped; deleted with the value.
    final class DroppingNamespace {
        let name = "headingd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

        init(dropping port: UInt16) throws {
            try Self.run(["/usr/sbin/ip", "netns", "add", name])
            try Self.run(["/usr/sbin/ip", "netns", "exec", name, "/usr/sbin/ip", "link", "set", "lo", "up"])
            let rules = """
                table inet headingd_test {
                    chain input { type filter hook input priority 0; tcp dport \(port) drop; }
                }
                """
            try Self.run(["/usr/sbin/ip", "netns", "exec", name, "/usr/sbin/nft", "-f", "-"], input: rules)
        }

        deinit { try? Self.run(["/usr/sbin/ip", "netns", "delete", name]) }

        static func run(_ command: [String], input: String? = nil) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            let pipe = Pipe()
            if input != nil { process.standardInput = pipe }
            try process.run()
            if let input {
                pipe.fileHandleForWriting.write(Data(input.utf8))
                try pipe.fileHandleForWriting.close()
            }
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(command.joined(separator: " ")) exited \(process.terminationStatus)"])
            }
        }
    }

    @Test func aDroppingFirewallIsAFaultWithin5sAndSIGTERMStopsWithin2s() async throws {
        let port = GPSFake.freePort()
        let namespace = try DroppingNamespace(dropping: port)
        let daemon = DaemonProcess(
            arguments: ["--source", "gpsd://127.0.0.1:\(port)", "--format", "json"],
            launcher: ["/usr/sbin/ip", "netns", "exec", namespace.name]
        )
        try daemon.start()
        // Faults are logged on standard error; both lines are timed as they arrive, from the
        // first connection attempt (the process's own start-up is not what is measured).
        let connecting = "gpsd://127.0.0.1:\(port): connecting"
        let fault = "fault: gpsd://127.0.0.1:\(port): sourceUnavailable: no answer from gpsd at 127.0.0.1:\(port) within 3.0 seconds"
        #expect(await daemon.wait(timeout: .seconds(20), untilErrorsContain: fault), "stderr: \(daemon.errors)")
        let attempted = try #require(daemon.timeOfError(containing: connecting))
        let faulted = try #require(daemon.timeOfError(containing: fault))
        let faultAfter = faulted - attempted
        #expect(faultAfter < .seconds(5), "the first fault came \(faultAfter) after the attempt began")
        // Stopped in the middle of the next unanswered attempt (3 s long, after a short backoff).
        try await Task.sleep(for: .milliseconds(500))  // into the next attempt: a span, not a synchronisation
        let stopping = ContinuousClock.now
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        let stoppedAfter = (daemon.exitedAt ?? .now) - stopping
        #expect(stoppedAfter < .seconds(2), "SIGTERM took \(stoppedAfter)")
        #expect(daemon.terminationStatus == 0)
        print("dropping firewall: first fault \(faultAfter) after the attempt began, stopped \(stoppedAfter) after SIGTERM")
    }
}
