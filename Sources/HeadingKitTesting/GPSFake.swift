// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization

/// Debian's `gpsfake` serving one log through a pty into a private gpsd on a port of its own.
///
/// gpsfake runs with `-i` (single-stepping): it feeds the log only as fast as the test writes
/// newlines to its standard input, so a test connects its client first and then calls
/// ``release(_:)`` — no sentence goes out before anyone watches (with plain `-n`, gpsfake starts
/// feeding about 1.3 s after launch whether or not a client is there). ``stop()`` (also run on
/// deinit, so a failing test cleans up too) ends gpsfake and its gpsd by PID.
public final class GPSFake: Sendable {
    /// Why gpsfake could not be started.
    public enum Failure: Error, CustomStringConvertible {
        /// gpsd did not accept connections in time; `output` is what gpsfake wrote on standard error,
        /// `observed` what each launch saw (gpsfake's exit, gpsd's PID, whether it listened, the
        /// files it had open) and the load average, so that a failure in CI explains itself.
        case notListening(port: UInt16, output: String, observed: [String])
        /// What went wrong, in one line.
        public var description: String {
            switch self {
            case .notListening(let port, let output, let observed):
                "gpsd did not listen on port \(port) within 20 s; gpsfake said: \(output); seen: \(observed.joined(separator: "; "))"
            }
        }
    }

    /// The port gpsd listens on.
    public let port: UInt16
    /// The log fed.
    public let log: String
    /// The running gpsfake and the pipe to its standard input.
    private let launched = Mutex<(process: Process, input: Pipe)?>(nil)
    private let errors: URL
    private let scratch: URL

    /// Prepares gpsfake for `log` on `port` (``start()`` launches it).
    /// - Parameters:
    ///   - log: The log to feed: NMEA, or any format gpsd reads.
    ///   - port: The port for gpsd; ``freePort()`` gives one.
    public init(log: String, port: UInt16) {
        self.log = log
        self.port = port
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("gpsfake-\(port)-\(UUID().uuidString)")
        errors = scratch.appendingPathComponent("gpsfake.err")
    }

    deinit { stop() }

    /// The number of lines in the log: enough newlines to feed all of it.
    public var lineCount: Int {
        ((try? Data(contentsOf: URL(fileURLWithPath: log))) ?? Data()).reduce(0) { $1 == 0x0A ? $0 + 1 : $0 } + 1
    }

    /// Launches gpsfake and returns once its gpsd accepts connections and has opened the fake
    /// device (within 20 s).
    ///
    /// gpsfake registers the device through gpsd's control socket as soon as the socket file
    /// exists, and silently gives up when gpsd does not accept on it yet; gpsd then never opens
    /// the device. When gpsd listens but has not opened the device 5 s later, gpsfake is started
    /// again, within the same 20 s. So it is when gpsd does not listen 5 s after the launch: seen
    /// in CI right after the system test, all six gpsfake tests at once, gpsd gone after its first
    /// log line (DBUS) while gpsfake waited on.
    public func start() async throws {
        // Polled on a thread of its own: a starved cooperative pool must not stretch the 20 s.
        try await offCooperativePool { try self.startBlocking() }
    }

    private func startBlocking() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let deadline = ContinuousClock.now + .seconds(20)
        var observed: [String] = []
        while ContinuousClock.now < deadline {
            let gpsfake = try launch()
            var listeningSince: ContinuousClock.Instant?
            var gpsdSeen: Int32?
            let launchedAt = ContinuousClock.now
            defer {
                let files = gpsdSeen.map { Self.openFiles(of: $0).joined(separator: ",") } ?? "-"
                let exit = gpsfake.isRunning ? "running" : "exited \(gpsfake.terminationStatus)"
                observed.append("launch \(observed.count + 1): gpsfake \(exit), gpsd \(gpsdSeen.map(String.init) ?? "not found"), listening \(listeningSince != nil), files [\(files)]")
            }
            // Ready means gpsd listens *and* has opened gpsfake's pty: gpsd flushes a serial
            // device's input when it opens it, so sentences released before that would be lost.
            while ContinuousClock.now < deadline, gpsfake.isRunning {
                let gpsd = gpsdProcessIdentifier
                if let gpsd { gpsdSeen = gpsd }
                if let gpsd, Self.hasOpenTerminal(gpsd), Self.accepts(port: port) { return }
                if listeningSince == nil, Self.accepts(port: port) { listeningSince = .now }
                if let listeningSince, ContinuousClock.now - listeningSince > .seconds(5) { break }
                if listeningSince == nil, ContinuousClock.now - launchedAt > .seconds(5) { break }
                usleep(20_000)  // polling /proc and a port: there is no event to await
            }
            end()
        }
        observed.append("load \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?")")
        let output = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        stop()
        throw Failure.notListening(port: port, output: output, observed: observed)
    }

    private func launch() throws -> Process {
        let input = Pipe()
        let gpsfake = Process()
        gpsfake.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
        gpsfake.arguments = ["-n", "-1", "-i", "-W", "120", "-P", String(port), "-q", log]
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch.path  // gpsfake leaves its control socket there
        gpsfake.environment = environment
        gpsfake.standardInput = input
        gpsfake.standardOutput = FileHandle.nullDevice
        let errorLog = try FileHandle(forWritingTo: errors)
        try errorLog.seekToEnd()  // each launch's words after the last's
        gpsfake.standardError = errorLog
        try gpsfake.run()
        launched.withLock { $0 = (gpsfake, input) }
        return gpsfake
    }

    /// Lets gpsfake feed `count` more sentences (default: the rest of the log).
    public func release(_ count: Int? = nil) {
        let newlines = Data(repeating: 0x0A, count: count ?? lineCount)
        try? launched.withLock { $0?.input }?.fileHandleForWriting.write(contentsOf: newlines)
    }

    /// The gpsd that gpsfake started, found by its parent PID.
    public var gpsdProcessIdentifier: Int32? {
        guard let parent = launched.withLock({ $0?.process.processIdentifier }) else { return nil }
        return Self.children(of: parent).first { Self.command(of: $0) == "gpsd" }
    }

    /// Kills gpsd alone (SIGKILL), as a crash would; gpsfake stays until ``stop()``.
    /// - Returns: When the signal was sent (after finding gpsd), or `nil` when there was no gpsd.
    @discardableResult
    public func killGPSD() -> ContinuousClock.Instant? {
        guard let gpsd = gpsdProcessIdentifier else { return nil }
        let now = ContinuousClock.now
        kill(gpsd, SIGKILL)
        return now
    }

    /// Ends gpsfake and its gpsd and removes the scratch directory; safe to call more than once.
    public func stop() {
        end()
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Ends gpsfake and its gpsd, by PID.
    private func end() {
        guard let (gpsfake, input) = launched.withLock({ launched in
            defer { launched = nil }
            return launched
        }) else { return }
        let gpsd = Self.children(of: gpsfake.processIdentifier).filter { Self.command(of: $0) == "gpsd" }
        if gpsfake.isRunning { kill(gpsfake.processIdentifier, SIGTERM) }
        try? input.fileHandleForWriting.close()  // gpsfake -i also ends at the end of its input
        let deadline = Date(timeIntervalSinceNow: 3)
        while gpsfake.isRunning, Date() < deadline { usleep(10_000) }
        if gpsfake.isRunning { kill(gpsfake.processIdentifier, SIGKILL) }
        for pid in gpsd { kill(pid, SIGKILL) }
        gpsfake.waitUntilExit()
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A port no one listens on, for TCP and UDP, that no other process can take: reserved for
    /// the rest of the test process (``PortReservation``), different for each call.
    public static func freePort() -> UInt16 {
        PortReservation.reserve()
    }

    private static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent
        }
    }

    /// Whether `pid` has a pseudo-terminal open (gpsd, once it has opened gpsfake's device).
    private static func hasOpenTerminal(_ pid: Int32) -> Bool {
        openFiles(of: pid).contains { $0.hasPrefix("/dev/pts/") }
    }

    /// What `pid`'s file descriptors point at.
    private static func openFiles(of pid: Int32) -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
    }

    private static func command(of pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
