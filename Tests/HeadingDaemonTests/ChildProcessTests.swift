// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

/// The tests' own way of starting programs (``ChildProcess``, under ``DaemonProcess`` and
/// ``Command``): a child's exit and output end are seen when it ends, whatever else runs.
@Suite struct ChildProcessTests {
    /// A long-lived program started meanwhile the careless way — `posix_spawn` with nothing
    /// closed, which inherits every descriptor not marked close-on-exec — holds none of the
    /// child's pipes: the child's end is seen at once. With Foundation's `Process` it was seen only
    /// when the other program ended (its exit socket and pipes are inheritable), which failed CI.
    @Test func anotherProgramStartedMeanwhileDoesNotHideTheExit() async throws {
        let child = DaemonProcess(arguments: ["30"], executable: "/bin/sleep")
        try child.start()
        var holder: pid_t = 0
        let words: [String] = ["/bin/sleep", "60"]
        let argv = words.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        #expect(posix_spawn(&holder, "/bin/sleep", nil, nil, argv + [nil], environ) == 0)
        defer {
            kill(holder, SIGKILL)
            var status: Int32 = 0
            waitpid(holder, &status, 0)
        }
        child.send(SIGTERM)
        #expect(await child.waitForExit(timeout: .seconds(10)))
        #expect(!child.exitedNormally && child.terminationStatus == SIGTERM)
    }

    /// ``Command`` gives the status and both outputs, in the directory asked for.
    @Test func aCommandGivesItsStatusAndOutputs() async throws {
        let result = try await Command.run("/bin/sh", ["-c", "pwd; echo oops >&2; exit 3"], in: URL(fileURLWithPath: "/tmp"))
        #expect(result.status == 3)
        #expect(result.output == "/tmp\n")
        #expect(result.errors == "oops\n")
    }
}
