// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM ends headingd within its stop deadline even when a thread is stuck in a blocking read
/// or write: the deadline (1.5 s) ends it where the graceful shutdown cannot.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdStopTests {
    /// A bound that holds the 1.5 s deadline with room for a loaded machine.
    static let stopBound = Duration.seconds(4)

    /// Starts headingd with standard output going to `output`, standard error to a file.
    private func start(_ arguments: [String], output: Any) throws -> (Process, URL) {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-stop-\(UUID().uuidString).err")
        #expect(FileManager.default.createFile(atPath: errors.path, contents: nil))
        let process = Process()
        process.executableURL = DaemonProcess.executableURL
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = nil
        environment["JOURNAL_STREAM"] = nil
        process.environment = environment
        try process.run()
        return (process, errors)
    }

    /// Waits, polling, until `condition` holds or `timeout` passes: the conditions here (a pipe
    /// filled, a file opened) have no event to await.
    private func poll(timeout: Duration, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// Sends SIGTERM and measures how long until the process is gone, timed on the thread that
    /// reaps it (a task polling on a busy cooperative pool would add its own delay).
    private func terminate(_ process: Process) async throws -> Duration {
        let exitedAt = Mutex<ContinuousClock.Instant?>(nil)
        process.terminationHandler = { _ in exitedAt.withLock { $0 = ContinuousClock.now } }
        let signalled = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        _ = try await poll(timeout: .seconds(10)) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        _ = try await poll(timeout: .seconds(2)) { exitedAt.withLock { $0 } != nil }
        return (exitedAt.withLock { $0 } ?? ContinuousClock.now) - signalled
    }

    @Test func aReplayOfAFIFONoOneWritesStopsOnSIGTERM() async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let (process, errors) = try start(["--source", "replay:\(fifo)"], output: FileHandle.nullDevice)
        defer { try? FileManager.default.removeItem(at: errors) }
        // headingd is blocked opening the FIFO once it has said it is authorized to read it.
        #expect(try await poll(timeout: .seconds(10)) {
            ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains("authorization: authorized")
        })
        let took = try await terminate(process)
        #expect(took < Self.stopBound, "stopped after \(took)")
        #expect(!process.isRunning)
        let text = try String(contentsOf: errors, encoding: .utf8)
        #expect(text.contains("stopping at once"), "stderr: \(text)")
    }

    @Test func standardOutputToAPipeNoOneReadsStopsOnSIGTERM() async throws {
        let pipe = Pipe()
        let (process, errors) = try start(["--rate", "100000", "--format", "json"], output: pipe)
        defer { try? FileManager.default.removeItem(at: errors) }
        // The pipe is full (nearly 64 KiB unread: a line does not fit) when headingd's write blocks.
        let readEnd = pipe.fileHandleForReading.fileDescriptor
        #expect(try await poll(timeout: .seconds(10)) {
            var unread: Int32 = 0
            return ioctl(readEnd, UInt(FIONREAD), &unread) == 0 && unread >= 60_000
        })
        let took = try await terminate(process)
        #expect(took < Self.stopBound, "stopped after \(took)")
        #expect(!process.isRunning)
    }

    @Test func aCleanShutdownIsNotCutShort() async throws {
        let (process, errors) = try start(["--rate", "10"], output: FileHandle.nullDevice)
        defer { try? FileManager.default.removeItem(at: errors) }
        #expect(try await poll(timeout: .seconds(10)) {
            ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains("authorization: authorized")
        })
        _ = try await terminate(process)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(!(try String(contentsOf: errors, encoding: .utf8)).contains("stopping at once"))
    }
}
