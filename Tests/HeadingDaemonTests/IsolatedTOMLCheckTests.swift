// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import HeadingDaemon
import Testing

/// The child-process check's own outcomes, with small scripts standing in for a parser that
/// crashes, hangs or cannot start (headingd's own child is tested end to end in
/// `ConfigurationTests` and `ReloadTests`).
@Suite(.timeLimit(.minutes(1)))
struct IsolatedTOMLCheckTests {
    /// A shell script of its own, removed with the value.
    final class Script {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-child-\(UUID().uuidString)").path

        init(_ body: String) throws {
            try Data("#!/bin/sh\n\(body)\n".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    private func refusal(_ text: String, _ script: Script, timeout: Duration = .seconds(5)) -> ConfigurationError? {
        do throws(ConfigurationError) {
            try IsolatedTOMLCheck.check(text, path: "/etc/x.toml", executable: script.path, timeout: timeout)
            return nil
        } catch {
            return error
        }
    }

    @Test func aChildThatReadsEverythingAndExitsZeroOrOneLetsTheParentParse() throws {
        // 200 KB: more than a socket buffer, so the parent must feed the child as it reads.
        let text = String(repeating: "# a comment line of some length\n", count: 6_400)
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-child-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        #expect(refusal(text, try Script("cat > \(copy); exit 0")) == nil)
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
