// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// headingd against a gpsd that misbehaves on purpose: it stays responsive, stops on SIGTERM
/// within 2 s with exit status 0, and its memory, threads and descriptors stay bounded.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdHostileGPSDTests {
    /// What /proc says of a process: resident memory (kB), threads, open descriptors, CPU ticks.
    struct Usage {
        let residentKilobytes: Int
        let threads: Int
        let descriptors: Int
        let cpuTicks: Int

        init?(pid: Int32) {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
            else { return nil }
            func field(_ name: String) -> Int? {
                status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                    .flatMap { Int($0.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") }
            }
            // After the command name in parentheses: state is field 3; utime and stime are 14 and 15.
            let afterName = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
            guard let resident = field("VmRSS"), let threads = field("Threads"), afterName.count > 13,
                let user = Int(afterName[11]), let system = Int(afterName[12])
            else { return nil }
            (residentKilobytes, self.threads, self.descriptors, cpuTicks) = (resident, threads, descriptors.count, user + system)
        }
    }

    @Test(arguments: HostileGPSD.Behaviour.allCases)
    func headingdStaysBoundedAndStopsWithin2s(behaviour: HostileGPSD.Behaviour) async throws {
        let server = try HostileGPSD(behaviour)
        defer { server.stop() }
        let daemon = DaemonProcess(arguments: ["--source", "gpsd://127.0.0.1:\(server.port)", "--format", "json"])
        try daemon.start()
        // Connected, and the misbehaviour under way: a second of it after the connection.
        #expect(await daemon.wait(untilErrorsContain: "connecting"))
        let connected = ContinuousClock.now
        let deadline = ContinuousClock.now + .seconds(10)
        while server.connectionCount == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }  // a counter: no event
        #expect(server.connectionCount >= 1)
        try await Task.sleep(until: connected + .seconds(2))  // a span of misbehaviour to measure, not a synchronisation
        let before = try #require(Usage(pid: daemon.processIdentifier))
        try await Task.sleep(for: .seconds(2))
        let after = try #require(Usage(pid: daemon.processIdentifier))
        let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))
        // A flood, garbage and 1 MiB lines as fast as loopback carries them are real work, read on
        // one thread: a third of a core measured on a busy machine, a whole core (200 ticks in 2 s)
        // on a quiet one, where the reader keeps up with the peer; never more than that core and a
        // tenth for the other threads. The slow ones (drip, silence, reset, absurd DEVICES) must
        // leave the core idle.
        let isHeavy = [.flood, .garbage, .oversizedLines].contains(behaviour)
        let cpuLimit = isHeavy ? ticksPerSecond * 2 + ticksPerSecond / 5 : ticksPerSecond / 2
        #expect(after.cpuTicks - before.cpuTicks < cpuLimit, "\(behaviour): \(after.cpuTicks - before.cpuTicks) ticks of CPU in 2 s")
        #expect(after.residentKilobytes < 150_000, "\(behaviour): \(after.residentKilobytes) kB resident")
        #expect(after.threads < 40, "\(behaviour): \(after.threads) threads")
        #expect(after.descriptors < 64, "\(behaviour): \(after.descriptors) descriptors")

        let signalled = ContinuousClock.now
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        // Timed where the exit is seen, not when this task next runs on a busy pool.
        let took = (daemon.exitedAt ?? ContinuousClock.now) - signalled
        #expect(took < .seconds(2), "\(behaviour): stopped after \(took)")
        #expect(daemon.exitedNormally && daemon.terminationStatus == 0, "\(behaviour): \(daemon.errors.suffix(500))")
        print("hostile gpsd \(behaviour): stopped after \(took); cpu \(after.cpuTicks - before.cpuTicks) ticks/2 s, rss \(after.residentKilobytes) kB, threads \(after.threads), fds \(after.descriptors)")
    }
}
