// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The real `headingd` binary, run as a child process with its output captured.
///
/// Started by ``ChildProcess`` (not Foundation's `Process`, whose descriptors another test's
/// program could inherit, hiding this one's exit).
///
/// Safety: `@unchecked Sendable` because the `let` properties are set by `init` and never change,
/// and `state` is read and written only while holding `lock`.
final class DaemonProcess: @unchecked Sendable {
    private struct State {
        var output = Data()
        var errors = Data()
        var waiter: CheckedContinuation<Void, Never>?
        var exited = false
        /// When the exit was seen, on Foundation's termination thread: not when a busy cooperative
        /// pool lets a waiting test run.
        var exitedAt: ContinuousClock.Instant?
        /// For each chunk of standard error: the length of `errors` after it, and when it arrived
        /// (on Foundation's reading thread, not when a busy cooperative pool lets a test run).
        var errorArrivals: [(length: Int, at: ContinuousClock.Instant)] = []
        var version = 0
        /// The process ID, once started.
        var pid: pid_t = 0
        /// How it ended, once reaped (before its pipes are drained).
        var termination: ChildProcess.Termination?
    }

    /// The `headingd` the tests run: `$TESTED_HEADINGD` when set (not `HEADINGD_…`: headingd reads
    /// every `HEADINGD_` variable as a setting and refuses one it does not know) — `scripts/test` sets it to the
    /// package's binary (`.build-deb/headingd`: the release objects the tests were built from, the
    /// Swift runtime linked static), the binary users run (an optimised build may end a value's
    /// life at its last use: `headingd deviation` heard nothing in it while a debug build passed)
    /// — else the `headingd` built beside the test bundle.
    static let executableURL: URL = {
        if let given = ProcessInfo.processInfo.environment["TESTED_HEADINGD"], !given.isEmpty {
            return URL(fileURLWithPath: given)
        }
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent("headingd")
    }()

    private let executable: String
    private let arguments: [String]
    private let environment: [String: String]
    private let lock = NSLock()
    private var state = State()

    /// - Parameters:
    ///   - arguments: headingd's arguments.
    ///   - environment: Variables to set (a `nil` value removes one).
    ///   - launcher: A command that runs headingd for the test, such as `ip netns exec NAME`: it
    ///     must exec headingd in place, so that the process started is headingd.
    ///   - executable: Another program to run in headingd's place (a broker, a subscriber), with the
    ///     same capture and waits.
    init(arguments: [String], environment: [String: String?] = [:], launcher: [String] = [], executable: String? = nil) {
        if let executable {
            self.executable = executable
            self.arguments = arguments
        } else if let command = launcher.first {
            self.executable = command
            self.arguments = launcher.dropFirst() + [Self.executableURL.path] + arguments
        } else {
            self.executable = Self.executableURL.path
            self.arguments = arguments
        }
        var variables = ProcessInfo.processInfo.environment
        // A test runner under systemd must not hand its own notify socket to headingd.
        variables["NOTIFY_SOCKET"] = nil
        variables["WATCHDOG_USEC"] = nil
        variables["JOURNAL_STREAM"] = nil
        for (name, value) in environment { variables[name] = value }
        self.environment = variables
    }

    /// Everything written to standard output so far.
    var output: String { lock.withLock { String(decoding: state.output, as: UTF8.self) } }
    /// Everything written to standard error so far.
    var errors: String { lock.withLock { String(decoding: state.errors, as: UTF8.self) } }
    /// Complete standard output lines so far.
    var outputLines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    /// The exit status, or the number of the signal that ended it, once it has ended; -1 while it runs.
    var terminationStatus: Int32 {
        switch lock.withLock({ state.termination }) {
        case .exited(let status), .signalled(let status): status
        case nil: -1
        }
    }
    /// Whether it exited normally (rather than by a signal).
    var exitedNormally: Bool {
        if case .exited = lock.withLock({ state.termination }) { return true }
        return false
    }
    /// When the process exit was seen (on the thread that reaps it), once it has exited.
    var exitedAt: ContinuousClock.Instant? { lock.withLock { state.exitedAt } }
    /// The process ID.
    var processIdentifier: Int32 { lock.withLock { state.pid } }

    /// headingd's resident set in KiB, from `/proc/PID/status`; `nil` once it has gone.
    var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    /// Its state as `/proc/PID/stat` gives it (`R`, `S`, `D`, `Z` …), `nil` once it is gone.
    /// `Z` with the process not yet reaped: its main thread has ended, and what is left of it (a
    /// thread the kernel holds in a read) ends when the kernel lets it.
    var procState: Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[close...].dropFirst().first { $0 != " " }
    }

    /// Starts it (``ChildProcess``: nothing of it can be inherited by another test's programs).
    func start() throws {
        let launched = try ChildProcess.launch(executable, arguments, environment: environment)
        let pid = launched.pid
        update { $0.pid = pid }
        // Each pipe is read to its end by a thread of its own, and the process reaped by a third;
        // the exit is reported once everything the pipes held is read.
        let drained = DispatchGroup()
        for (descriptor, isErrors) in [(launched.output, false), (launched.errors, true)] {
            drained.enter()
            Thread { [weak self] in
                defer { drained.leave() }
                ChildProcess.drain(descriptor) { data in
                    let arrived = ContinuousClock.now
                    self?.update { state in
                        if isErrors {
                            state.errors.append(data)
                            state.errorArrivals.append((state.errors.count, arrived))
                        } else {
                            state.output.append(data)
                        }
                    }
                }
            }.start()
        }
        Thread { [weak self] in
            let termination = ChildProcess.reap(pid)
            let exitedAt = ContinuousClock.now
            self?.update { $0.termination = termination }
            drained.notify(queue: .global()) {
                self?.update {
                    $0.exited = true
                    $0.exitedAt = exitedAt
                }
            }
        }.start()
    }

    /// When standard error first held `text` in full: the arrival of the chunk that completed it.
    func timeOfError(containing text: String) -> ContinuousClock.Instant? {
        lock.withLock {
            guard let range = state.errors.range(of: Data(text.utf8)) else { return nil }
            return state.errorArrivals.first { $0.length >= range.upperBound }?.at
        }
    }

    /// Sends a signal.
    func send(_ signal: Int32) { kill(processIdentifier, signal) }

    /// Waits until `condition` holds over (standard output, exited), re-checking on every change,
    /// for at most `timeout`. Returns whether it held.
    func wait(timeout: Duration = .seconds(30), until condition: @escaping @Sendable (String, Bool) -> Bool) async -> Bool {
        await waitForState(timeout: timeout) { condition(String(decoding: $0.output, as: UTF8.self), $0.exited) }
    }

    /// Waits until standard error contains `text`, for at most `timeout`. Returns whether it did.
    func wait(timeout: Duration = .seconds(30), untilErrorsContain text: String) async -> Bool {
        await waitForState(timeout: timeout) { String(decoding: $0.errors, as: UTF8.self).contains(text) }
    }

    /// Waits until `condition` holds over standard error, for at most `timeout`. Returns whether it did.
    /// (The condition runs under the process's lock: it must not read ``errors`` or ``output`` itself.)
    func wait(timeout: Duration = .seconds(30), untilErrors condition: @escaping @Sendable (String) -> Bool) async -> Bool {
        await waitForState(timeout: timeout) { condition(String(decoding: $0.errors, as: UTF8.self)) }
    }

    private func waitForState(timeout: Duration, until condition: @escaping @Sendable (State) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (holds, version) = lock.withLock { (condition(state), state.version) }
            if holds { return true }
            if ContinuousClock.now >= deadline { return false }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.nextChange(after: version) }
                group.addTask { try? await Task.sleep(until: deadline) }
                await group.next()
                group.cancelAll()
                self.wakeWaiter()
            }
        }
    }

    /// Waits for exit for at most `timeout`; kills the process if it is still running then.
    func waitForExit(timeout: Duration = .seconds(30)) async -> Bool {
        let exited = await wait(timeout: timeout) { _, exited in exited }
        if !exited {
            kill(processIdentifier, SIGTERM)
            kill(processIdentifier, SIGKILL)
            // Reaped before anyone reads its status.
            _ = await wait(timeout: .seconds(5)) { _, exited in exited }
        }
        return exited
    }

    /// Runs headingd to completion and returns it.
    static func run(
        _ arguments: [String], environment: [String: String?] = [:], timeout: Duration = .seconds(60)
    ) async throws -> DaemonProcess {
        let daemon = DaemonProcess(arguments: arguments, environment: environment)
        try daemon.start()
        _ = await daemon.waitForExit(timeout: timeout)
        return daemon
    }

    deinit {
        // The reaping thread reaps it; until then its ID cannot be reused.
        let (pid, running) = lock.withLock { (state.pid, state.termination == nil) }
        if pid > 0, running { kill(pid, SIGKILL) }
    }

    private func update(_ change: (inout State) -> Void) {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            change(&state)
            state.version += 1
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns after the first change past `version` (at once if one already happened).
    private func nextChange(after version: Int) async {
        await withCheckedContinuation { continuation in
            let changed = lock.withLock {
                if state.version != version { return true }
                state.waiter = continuation
                return false
            }
            if changed { continuation.resume() }
        }
    }

    private func wakeWaiter() {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
