// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import HeadingPorts

#if canImport(Glibc)
import Glibc
#endif

/// Runs the TOML parser on a configuration file's text in a child process, which sends back the
/// parsed values (a ``TOMLDocument``), so that a file the parser cannot survive is a refused
/// configuration, not a crashed daemon, and the parser's memory, which TOMLKit never frees, ends
/// with the child instead of growing the daemon at each reload.
///
/// toml++ (inside TOMLKit 0.6.0) ends the process with `abort()` on some malformed input: its
/// assertions are compiled into release builds, and `Fuzz/FuzzTOML` keeps finding new ones
/// (`Fuzz/Crashes/TOML/`). A SIGHUP with such a drop-in would take down a running service, and
/// `headingd --check-config` would die with status 134. The child is headingd itself, started
/// with ``childArgument`` and the file's text on its standard input: it writes the document (its
/// values, or the parser's own error and line) on its standard output and exits 0. A child killed by
/// a signal, still running after ``timeout``, or answering anything but a document is a refusal
/// naming the file. The cost is one process start per file read (start-up, `--check-config`, each
/// reload): about 10 ms.
enum IsolatedTOMLCheck {
    /// The argument (the only one) that makes headingd the checking child. Not an option: it is
    /// handled before the command line is parsed, and `--help` does not list it.
    static let childArgument = "--internal-toml-check"

    /// How long the child may take for a file of at most ``SettingsLoader/maximumFileSize`` bytes.
    static let timeout: Duration = .seconds(5)

    /// The most a child may answer: far more than any configuration's values (a file of at most
    /// 1 MiB can still name a long table again in every entry).
    static let maximumAnswerSize = 16 << 20

    /// Parses `text` in a child process started from `executable`, waiting at most `timeout`.
    /// - Returns: The parsed document, or the parser's error in it.
    /// - Throws: A ``ConfigurationError`` naming `path` when the child crashed, hung, answered
    ///   nonsense, or could not be started.
    static func parse(
        _ text: String, path: String, executable: String, timeout: Duration = timeout
    ) throws(ConfigurationError) -> TOMLDocument {
        func refusal(_ reason: String) -> ConfigurationError {
            ConfigurationError(origin: path, key: nil, reason: reason)
        }
        // stdin: a socket pair (send(2) with MSG_NOSIGNAL: no SIGPIPE if the child dies first).
        // stdout: a second pair, whose end of file says that the child has exited. Both are
        // close-on-exec here; the child gets its copies as 0 and 1.
        var input: [Int32] = [-1, -1]
        var done: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &input) == 0 else {
            throw refusal("cannot check it in a child process: socketpair: \(String(cString: strerror(errno)))")
        }
        defer { close(input[1]) }
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &done) == 0 else {
            close(input[0])
            throw refusal("cannot check it in a child process: socketpair: \(String(cString: strerror(errno)))")
        }
        defer { close(done[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, done[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var child: pid_t = 0
        let arguments = [executable, childArgument]
        let spawned = withArrayOfCStrings(arguments) { argv in
            // No backtrace from Swift's runtime when the parser aborts: it would only delay the answer.
            withArrayOfCStrings(["SWIFT_BACKTRACE=enable=no"]) { environment in
                posix_spawn(&child, executable, &actions, nil, argv, environment)
            }
        }
        close(input[0])
        close(done[1])
        guard spawned == 0 else {
            throw refusal("cannot check it in a child process: cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var pending = Array(text.utf8)[...]
        _ = fcntl(input[1], F_SETFL, fcntl(input[1], F_GETFL) | O_NONBLOCK)
        if pending.isEmpty { shutdown(input[1], Int32(SHUT_WR)) }
        var finished = false
        var answer: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while !finished {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { break }
            var descriptors = [pollfd(fd: done[0], events: Int16(POLLIN), revents: 0)]
            if !pending.isEmpty { descriptors.append(pollfd(fd: input[1], events: Int16(POLLOUT), revents: 0)) }
            let milliseconds = remaining.pollMilliseconds
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0, errno != EINTR { break }
            if descriptors[0].revents != 0 {
                let count = read(done[0], &scratch, scratch.count)
                if count > 0 {
                    answer += scratch[0..<count]
                    if answer.count > maximumAnswerSize { break }
                }
                if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) { finished = true }
            }
            if descriptors.count > 1, descriptors[1].revents != 0 {
                let sent = pending.withUnsafeBytes { send(input[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent > 0 {
                    pending = pending.dropFirst(sent)
                    if pending.isEmpty { shutdown(input[1], Int32(SHUT_WR)) }
                } else if sent < 0, errno != EAGAIN, errno != EINTR {
                    pending = []  // the child has gone: its status says why
                }
            }
        }
        if !finished { kill(child, SIGKILL) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        guard answer.count <= maximumAnswerSize else {
            throw refusal("holds too many values: over \(maximumAnswerSize >> 20) MiB once parsed, so the file is refused")
        }
        guard finished else {
            throw refusal("not valid TOML: the parser did not finish within \(timeout.components.seconds) s, so the file is refused")
        }
        let signal = status & 0x7F
        if signal != 0 {
            throw refusal(
                "not valid TOML: the parser (toml++ in TOMLKit) crashed on it (signal \(signal)), so the file is refused; "
                    + "look for a malformed value or table header"
            )
        }
        let exitStatus = (status >> 8) & 0xFF
        guard exitStatus == 0 else {
            throw refusal("cannot check it in a child process: \(executable) exited with status \(exitStatus)")
        }
        guard let document = TOMLDocument(decoding: answer) else {
            throw refusal("cannot check it in a child process: \(executable) answered what is not a parsed document")
        }
        return document
    }

    /// The child's side: parses standard input (at most ``SettingsLoader/maximumFileSize`` bytes),
    /// writes the ``TOMLDocument`` (values or error) on standard output and exits 0; 2 if it cannot
    /// read its input or write its answer.
    static func runChild() -> Never {
        // An abort here is expected now and then: no core file (the parent reports the refusal).
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= SettingsLoader.maximumFileSize {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                exit(2)
            }
            bytes += chunk[0..<count]
        }
        guard bytes.count <= SettingsLoader.maximumFileSize, let text = String(validating: bytes, as: UTF8.self) else { exit(2) }
        let answer = TOMLDocument(parsing: text).encoded
        var written = 0
        while written < answer.count {
            let count = answer[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { exit(2) }
            written += count
        }
        exit(0)
    }

    /// Calls `body` with `strings` as a NULL-terminated C array, valid for the call only.
    private static func withArrayOfCStrings<Result>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
    ) -> Result {
        let pointers = strings.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        return body(pointers + [nil])
    }
}
