// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import CChildProcess
import Foundation

/// Starts the tests' child processes with `posix_spawn`, so that no child holds another's pipes.
///
/// Foundation's `Process` on Linux learns that a child has exited when a socket it hands the child
/// reaches its end, and it makes that socket, and a `Pipe`'s ends, without close-on-exec. Another
/// test starting a program at that moment (Swift Testing runs them in parallel) could pass them on
/// to it: the child's exit, and the end of its output, were then not seen until that other program
/// ended — a headingd that had stopped at once was reported still running 15 s after SIGTERM and
/// SIGKILL (CI, `sighupWithAFileThatCrashesTheParserKeepsTheDaemonRunning`). Here every descriptor is
/// made close-on-exec, each child closes all descriptors from 3 on as it starts, and the exit is
/// learned from `waitpid`, not from a descriptor.
enum ChildProcess {
    /// How a child ended.
    enum Termination: Sendable, Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)
    }

    /// Why a child could not be started.
    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    /// A pipe, both ends close-on-exec.
    static func makePipe() throws(SpawnError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard cchild_process_pipe(&ends) == 0 else {
            throw SpawnError(description: "pipe2: \(String(cString: strerror(errno)))")
        }
        return (ends[0], ends[1])
    }

    /// `/dev/null`, open for reading and writing, close-on-exec.
    static func openNull() throws(SpawnError) -> Int32 {
        let descriptor = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw SpawnError(description: "/dev/null: \(String(cString: strerror(errno)))") }
        return descriptor
    }

    /// Starts `executable` with `input`, `output` and `error` as its descriptors 0, 1 and 2 and no
    /// others, in a process group of its own (as Foundation's `Process` does), with no signal blocked.
    /// The caller keeps its own copies of the three descriptors and closes them.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil,
        input: Int32, output: Int32, error: Int32
    ) throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, error, 2)
        cchild_process_add_close_from(&actions, 3)
        if let directory { cchild_process_add_chdir(&actions, directory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], envp + [nil])
        guard result == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// A started child and the read ends of its standard output and error (the caller's to close).
    struct Launched {
        let pid: pid_t
        let output: Int32
        let errors: Int32
    }

    /// Starts `executable` with `/dev/null` as its input and a pipe for each of its outputs
    /// (``spawn(_:_:environment:directory:input:output:error:)``); this process keeps only the
    /// pipes' read ends.
    static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil
    ) throws(SpawnError) -> Launched {
        // Whatever is open when this returns or throws is closed, but the read ends it hands over.
        var toClose: [Int32] = []
        defer { toClose.forEach { close($0) } }
        let output = try makePipe()
        toClose += [output.read, output.write]
        let errors = try makePipe()
        toClose += [errors.read, errors.write]
        let null = try openNull()
        toClose.append(null)
        let pid = try spawn(
            executable, arguments, environment: environment, directory: directory, input: null, output: output.write, error: errors.write
        )
        toClose = [output.write, errors.write, null]
        return Launched(pid: pid, output: output.read, errors: errors.read)
    }

    /// Waits for `pid` to end and reaps it. Blocks: call it on a thread of its own.
    static func reap(_ pid: pid_t) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .exited(-1) }
        }
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    /// Reads `descriptor` to its end, handing each chunk to `received`, then closes it. Blocks.
    static func drain(_ descriptor: Int32, _ received: (Data) -> Void) {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            received(Data(buffer[0..<count]))
        }
    }
}
