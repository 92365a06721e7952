// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

package import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A driver program's standard output, read as NMEA 0183: any program in any language (a Python
/// IMU script, a vendor's tool) becomes a heading source. The child is started with an empty
/// signal mask and default signal dispositions (whatever headingd's threads block or ignore), in a
/// process group of its own, its standard input `/dev/null`; its standard error is logged line by
/// line (lines over 512 bytes cut, at most 20 lines a second: a chatty driver cannot flood the
/// journal). Its exit ends the stream, and the feed starts it again with backoff; closing the
/// stream ends the child (SIGTERM, then SIGKILL after 1 s). Either way, what it started in the
/// background (in its process group) is ended with it: SIGTERM to the group, then SIGKILL
/// after 1 s; nothing of a driver outlives its stream.
package final class ChildProcessStream: ByteStream {
    private var child: pid_t = 0
    private var output: Int32 = -1
    private var errors: Int32 = -1
    private let name: String
    private let logger: Logger
    private var errorLine: [UInt8] = []
    private var errorLinesThisSecond = 0
    private var errorSecond = ContinuousClock.now
    private var droppedErrorLines = 0

    /// The longest standard error line logged, in bytes.
    private static let errorLineLimit = 512
    /// The most standard error lines logged a second.
    private static let errorLinesPerSecond = 20

    /// Starts `path` with `arguments`.
    /// - Throws: ``PortFailure`` when it cannot be started.
    package init(path: String, arguments: [String], logger: Logger) throws(PortFailure) {
        name = path
        self.logger = logger
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        // pipe2 needs _GNU_SOURCE, which Swift's Glibc module does not define: pipe, then close-on-exec.
        guard Self.makePipe(&outputPipe) else { throw .system(errno, "cannot start \(path)") }
        guard Self.makePipe(&errorPipe) else {
            let error = errno
            Glibc.close(outputPipe[0])
            Glibc.close(outputPipe[1])
            throw .system(error, "cannot start \(path)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        Glibc.close(outputPipe[1])
        Glibc.close(errorPipe[1])
        guard status == 0 else {
            Glibc.close(outputPipe[0])
            Glibc.close(errorPipe[0])
            throw .system(status, "cannot start \(path)")
        }
        child = pid
        output = outputPipe[0]
        errors = errorPipe[0]
    }

    deinit { close() }

    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, waitingAtMost milliseconds: Int32, wakingOn wake: Int32) -> ByteStreamRead {
        guard output >= 0 else { return .ended(exitFailure()) }
        var requests = [
            pollfd(fd: output, events: Int16(POLLIN), revents: 0), pollfd(fd: errors, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&requests, 3, max(1, milliseconds))  // a closed standard error is -1: ignored
        if ready == 0 || (ready < 0 && errno == EINTR) {
            // Quiet: has it exited while something it started holds its standard output open?
            return exitedWhileQuiet() ?? .timedOut
        }
        if errors >= 0, requests[1].revents != 0 { readErrors() }
        guard requests[0].revents != 0 else { return .timedOut }
        let count = Glibc.read(output, buffer.baseAddress, buffer.count)
        if count > 0 { return .bytes(count: count, sender: 0) }
        if count < 0, errno == EAGAIN || errno == EINTR { return .timedOut }
        // Its standard output closed: it exited (or closed it, which is as good as exiting).
        while errors >= 0, readErrors() {}
        return .ended(exitFailure())
    }

    /// Reads what the child wrote to standard error and logs it line by line, bounded.
    /// - Returns: Whether anything was read.
    @discardableResult
    private func readErrors() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(errors, $0.baseAddress, $0.count) }
        guard count > 0 else {
            if count == 0 || (errno != EAGAIN && errno != EINTR) {
                Glibc.close(errors)
                errors = -1
            }
            return false
        }
        for byte in chunk[..<count] {
            if byte == 0x0A {
                logErrorLine()
            } else if errorLine.count < Self.errorLineLimit {
                errorLine.append(byte)
            }
        }
        return true
    }

    private func logErrorLine() {
        defer { errorLine.removeAll(keepingCapacity: true) }
        let now = ContinuousClock.now
        if now - errorSecond >= .seconds(1) {
            if droppedErrorLines > 0 { logger.notice("\(name): \(droppedErrorLines) more lines on its standard error were not logged") }
            errorSecond = now
            errorLinesThisSecond = 0
            droppedErrorLines = 0
        }
        guard errorLinesThisSecond < Self.errorLinesPerSecond else {
            droppedErrorLines += 1
            return
        }
        errorLinesThisSecond += 1
        logger.notice("\(name): \(String(decoding: errorLine, as: UTF8.self))")
    }

    /// The end of the stream when the child has exited although its standard output is still
    /// open: a helper it started in the background holds it (`sleep 300 &`). Without this, such a
    /// driver's exit would never be seen, nor the driver started again.
    private func exitedWhileQuiet() -> ByteStreamRead? {
        guard child > 0 else { return nil }
        var status: Int32 = 0
        guard waitpid(child, &status, WNOHANG) == child else { return nil }
        let group = child
        child = 0
        Self.endGroup(group)
        return .ended(exitFailure(status: status))
    }

    /// Reaps the child (waiting at most 1 s before killing it), ends what it left running in its
    /// process group, and says how it ended.
    /// - Parameter reaped: Its wait status, when it is reaped already.
    private func exitFailure(status reaped: Int32? = nil) -> PortFailure {
        let status = reaped ?? reap(waitingMilliseconds: 1000)
        let how: String
        if let status, status & 0x7F == 0 {
            how = "exited with status \((status >> 8) & 0xFF)"
        } else if let status {
            how = "was killed by signal \(status & 0x7F)"
        } else {
            how = "closed its standard output"
        }
        if output >= 0 { Glibc.close(output); output = -1 }
        return PortFailure(code: .sourceUnavailable, reason: "driver \(name) \(how)")
    }

    /// Waits for the child for at most `milliseconds`, then SIGKILL and wait; then ends the rest
    /// of its process group (helpers it started in the background): SIGTERM, at most 1 s, SIGKILL.
    /// - Returns: Its wait status, or `nil` when there was none to reap.
    private func reap(waitingMilliseconds milliseconds: Int) -> Int32? {
        guard child > 0 else { return nil }
        let group = child  // spawned with POSIX_SPAWN_SETPGROUP 0: the group is its own id
        defer { Self.endGroup(group) }
        var status: Int32 = 0
        for _ in 0..<(milliseconds / 10) {
            if waitpid(child, &status, WNOHANG) == child {
                child = 0
                return status
            }
            usleep(10_000)
        }
        kill(-group, SIGKILL)
        waitpid(child, &status, 0)
        child = 0
        return status
    }

    /// Ends every process left in `group` (the driver's own, once it is reaped): SIGTERM, then
    /// SIGKILL for what is still there after 1 s. Their parent is now init (or the nearest
    /// subreaper), which reaps them; a group that cannot be signalled any more is empty.
    private static func endGroup(_ group: pid_t) {
        guard kill(-group, SIGTERM) == 0 else { return }  // ESRCH: nothing left
        for _ in 0..<100 {
            usleep(10_000)
            if kill(-group, 0) != 0 { return }
        }
        kill(-group, SIGKILL)
    }

    package func close() {
        if child > 0 { kill(-child, SIGTERM) }  // the driver's whole group: helpers it started too
        if output >= 0 { Glibc.close(output); output = -1 }
        if errors >= 0 { Glibc.close(errors); errors = -1 }
        _ = reap(waitingMilliseconds: 1000)
    }
}
