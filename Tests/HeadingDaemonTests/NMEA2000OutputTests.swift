// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingPorts
import Logging
import NMEA2000
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import HeadingDaemon

/// The NMEA 2000 output against a bus that pushes back, which neither vcan nor a gateway over TCP
/// can play: a scripted link that takes frames, or has no room (`ENOBUFS`, a bus with no other
/// node to acknowledge), or fails (the interface gone).
struct NMEA2000OutputTests {
    /// What the scripted link does with a write: take it, refuse it for want of room, or fail it
    /// as an interface that went away — once: the link opened again finds the bus taking frames
    /// (a bus failing for longer would fail the reopened link's claim too, a second reopening
    /// whose timing the test cannot fix).
    enum Mode { case take, full, failOnce }

    /// The test's side of the scripted links: their mode, and every frame taken.
    final class Bus: Sendable {
        let mode = Mutex(Mode.take)
        let taken = Mutex<[CANFrame]>([])
        let opened = Atomic(0)
        /// Writes refused for want of room.
        let refused = Atomic(0)
        /// How many frames had been taken when the interface failed; -1 until it has.
        let failedAfter = Atomic(-1)

        var frames: [CANFrame] { taken.withLock { $0 } }

        /// Waits (at most `timeout`, polling the frames taken every 10 ms) until `condition` holds.
        ///
        /// The time this task could not run is not counted (up to a minute more): the output's own
        /// start is a task on the cooperative pool too, and with every test at once on its two
        /// threads a claim once waited longer than the 10 s, the output itself not yet started.
        func wait(timeout: Duration = .seconds(10), until condition: ([CANFrame]) -> Bool) async -> Bool {
            var deadline = ContinuousClock.now + timeout
            let limit = deadline + .seconds(60)
            while ContinuousClock.now < deadline {
                if condition(frames) { return true }
                let asleep = ContinuousClock.now
                try? await Task.sleep(for: .milliseconds(10))
                let held = ContinuousClock.now - asleep - .milliseconds(10)
                if held > .milliseconds(200) { deadline = min(limit, deadline + held) }
            }
            return condition(frames)
        }
    }

    /// A link whose descriptor never becomes readable (a pipe nobody writes), its writes scripted by a ``Bus``.
    final class ScriptedLink: CANLink {
        let bus: Bus
        let ends: (Int32, Int32)
        init(bus: Bus) {
            self.bus = bus
            var pair: [Int32] = [-1, -1]
            _ = pipe(&pair)
            ends = (pair[0], pair[1])
            bus.opened.add(1, ordering: .relaxed)
        }
        deinit { close() }
        var descriptor: Int32 { ends.0 }
        var name: String { "scripted" }
        func write(_ frame: CANFrame) -> CANLinkWrite {
            let mode = bus.mode.withLock { mode in
                defer { if mode == .failOnce { mode = .take } }
                return mode
            }
            switch mode {
            case .take:
                bus.taken.withLock { $0.append(frame) }
                return .written
            case .full:
                bus.refused.add(1, ordering: .relaxed)
                return .full
            case .failOnce:
                bus.failedAfter.store(bus.frames.count, ordering: .relaxed)
                return .failed("the scripted interface went down")
            }
        }
        func read(_ body: (CANFrame) -> Void) -> String? { nil }
        /// Closes the pipe once: the output closes the link and then drops it (`deinit`), and a
        /// second close would close whatever descriptor another test had opened under that number
        /// meanwhile (the tests run in parallel in one process).
        private let closed = Atomic(false)
        func close() {
            guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            Glibc.close(ends.0)
            Glibc.close(ends.1)
        }
    }

    /// A log handler keeping every message.
    struct Collecting: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lines.all.withLock { $0.append("\(event.level): \(event.message)") } }
    }

    final class Lines: Sendable {
        let all = Mutex<[String]>([])
        func count(_ text: String) -> Int { all.withLock { $0.filter { $0.contains(text) }.count } }
    }

    static func heading(_ value: Double) -> Heading {
        Heading(trueHeading: value, magneticHeading: nil, timestamp: Date(), source: "compass")
    }

    static func degrees(_ frame: CANFrame) -> Double {
        Double(UInt16(frame[1]) | UInt16(frame[2]) << 8) * 0.0001 * 180 / .pi
    }

    @Test func aBusThatTakesNothingIsSaidOnceTheNewestHeadingWaitsAndALostLinkIsOpenedAndClaimedAgain() async throws {
        let bus = Bus()
        let lines = Lines()
        let logger = Logger(label: "test") { _ in Collecting(lines: lines) }
        let fanOut = HeadingFanOut()
        var settings = NMEA2000OutputSettings()
        settings.interface = .socketCAN("scripted")
        let name = DeviceName(uniqueNumber: 1234, manufacturerCode: 2046, deviceFunction: 160, deviceClass: 40)
        let output = NMEA2000Output(
            configuration: .init(
                settings: settings, interface: .socketCAN("scripted"),
                identity: .init(name: name, model: "headingd", softwareVersion: "test", serialCode: "1234"), preferredAddress: 35
            ),
            center: fanOut, metrics: HeadingMetrics(version: "test").output("nmea2000"), registry: nil, store: nil,
            linkOpener: { _ in ScriptedLink(bus: bus) }, logger: logger
        )
        let running = Task { try await output.run() }
        defer { running.cancel() }

        // Claimed, then headings go out as 127250.
        #expect(await bus.wait { $0.first?.identifier.pgn == NMEA2000PGN.addressClaim })
        var value = 10.0
        func deliver() async throws {
            value += 1
            let started = ContinuousClock.now
            fanOut.deliver(.heading(Self.heading(value)))
            // The heading path never waits for the bus: a write that waited would hold it for the
            // bus's 2 s "stuck" time or for ever; 1 s tells that apart from a loaded machine's scheduling.
            #expect(ContinuousClock.now - started < .seconds(1))
            try await Task.sleep(for: .milliseconds(100))
        }
        // The address is the node's 250 ms after its claim (ISO 11783-5): headings are delivered
        // until the first goes out (the event, awaited), then five more all go out.
        func sent() -> Int { bus.frames.filter { $0.identifier.pgn == NMEA2000PGN.vesselHeading }.count }
        let claimHeld = ContinuousClock.now + .seconds(10)
        while sent() == 0, ContinuousClock.now < claimHeld { try await deliver() }
        let firstSent = sent()
        #expect(firstSent > 0, "no 127250 within 10 s of the claim")
        for _ in 0..<5 { try await deliver() }
        #expect(await bus.wait { $0.filter { $0.identifier.pgn == NMEA2000PGN.vesselHeading }.count >= firstSent + 4 })

        // No room for 3 s: said once, after 2 s; the headings keep coming and only the newest waits.
        bus.mode.withLock { $0 = .full }
        for _ in 0..<30 { try await deliver() }
        #expect(lines.count("has taken no frame") == 1, "\(lines.all.withLock { $0 })")
        // Once reported stuck it tries a few times a second, not every 5 ms (a bus may stay empty for hours).
        let triesBefore = bus.refused.load(ordering: .relaxed)
        for _ in 0..<10 { try await deliver() }
        let during = bus.refused.load(ordering: .relaxed) - triesBefore
        #expect(during >= 3 && during <= 40, "\(during) tries in a second of a stuck bus")
        let before = bus.frames.count
        bus.mode.withLock { $0 = .take }
        // Within a second of room, the newest heading (not one from 3 s ago) goes out, and it is said.
        #expect(await bus.wait { $0.count > before })
        let first = try #require(bus.frames[before...].first { $0.identifier.pgn == NMEA2000PGN.vesselHeading } ?? nil)
        #expect(abs(Self.degrees(first) - value) < 0.01, "\(Self.degrees(first)) after \(value)")
        #expect(await bus.wait { _ in lines.count("takes frames again") == 1 })

        // The interface goes: opened again, and claimed again before anything else.
        bus.mode.withLock { $0 = .failOnce }
        try await deliver()
        #expect(await bus.wait(timeout: .seconds(5)) { frames in (0..<frames.count).contains(bus.failedAfter.load(ordering: .relaxed)) })
        let failedAt = bus.failedAfter.load(ordering: .relaxed)
        #expect(bus.opened.load(ordering: .relaxed) == 2)
        #expect(bus.frames[failedAt].identifier.pgn == NMEA2000PGN.addressClaim)
        #expect(lines.count("the scripted interface went down; opening it again") == 1)
        running.cancel()
        _ = await running.result
    }
}
