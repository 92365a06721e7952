// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
@testable import HeadingDaemon

#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The child-process check's own outcomes, with small scripts standing in for a parser that
/// crashes, hangs or cannot start (headingd's own child is tested end to end in
/// `ConfigurationTests` and `ReloadTests`).
@Suite(.processSlot, .timeLimit(.minutes(2)))
struct IsolatedTOMLCheckTests {
    /// A shell script of its own, removed with the value.
    final class Script {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-child-\(UUID().uuidString)").path

        /// Written through a close-on-exec descriptor: a descriptor open for writing that a child
        /// process of another test inherits would make the exec fail with ETXTBSY.
        init(_ body: String) throws {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o700)
            guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            defer { close(descriptor) }
            let bytes = Array("#!/bin/sh\n\(body)\n".utf8)
            guard write(descriptor, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// The check's refusal, if any. A script just written can be "busy" for an instant: another
    /// test's child, forked in the moment the script was open for writing, holds that descriptor
    /// until it execs. That race is the tests' own (headingd's child is its own binary), so it is
    /// retried, a few times.
    private func refusal(_ text: String, _ script: Script, timeout: Duration = .seconds(5)) -> ConfigurationError? {
        for _ in 1...20 {
            do throws(ConfigurationError) {
                try IsolatedTOMLCheck.check(text, path: "/etc/x.toml", executable: script.path, timeout: timeout)
                return nil
            } catch where error.reason.contains("Text file busy") {
                usleep(50_000)
            } catch {
                return error
            }
        }
        return ConfigurationError(origin: "/etc/x.toml", key: nil, reason: "the script stayed busy")
    }

    @Test func aChildThatReadsEverythingAndExitsZeroOrOneLetsTheParentParse() throws {
        // 200 KB: more than a socket buffer, so the parent must feed the child as it reads.
        let text = String(repeating: "# a comment line of some length\n", count: 6_400)
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-child-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let outcome = refusal(text, try Script("cat > \(copy); exit 0"))
        #expect(outcome == nil, "refused: \(outcome.map { "\($0)" } ?? "")")
        #expect(try String(contentsOfFile: copy, encoding: .utf8) == text)
        #expect(refusal("", try Script("cat > /dev/null; exit 1")) == nil)
    }

    @Test func aChildKilledByASignalIsARefusalNamingTheFileAndSignal() throws {
        let error = try #require(refusal("a = 1\n", try Script("cat > /dev/null; kill -ABRT $$")))
        #expect(error.origin == "/etc/x.toml")
        #expect(error.reason.contains("crashed on it (signal 6), so the file is refused"))
    }

    @Test func aChildThatHangsIsKilledAtTheTimeout() throws {
        let start = ContinuousClock.now
        let error = try #require(refusal("a = 1\n", try Script("exec sleep 60"), timeout: .milliseconds(300)))
        #expect(error.reason.contains("did not finish"))
        #expect(ContinuousClock.now - start < .seconds(30))  // not the child's 60 s
    }

    @Test func aChildThatDiesBeforeReadingIsAnsweredByItsStatus() throws {
        // 1 MB that nobody reads: the parent must not block or die of SIGPIPE.
        let text = String(repeating: "x", count: 1 << 20)
        let error = try #require(refusal(text, try Script("exit 3")))
        #expect(error.reason.contains("exited with status 3"))
    }

    @Test func anExecutableThatCannotStartIsARefusal() {
        let error: ConfigurationError?
        do throws(ConfigurationError) {
            try IsolatedTOMLCheck.check("a = 1\n", path: "/etc/x.toml", executable: "/nonexistent/headingd")
            error = nil
        } catch let refusal { error = refusal }
        #expect(error?.reason.contains("cannot start /nonexistent/headingd") == true)
    }
}
