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
@Suite(.processSlot, .timeLimit(.minutes(20)))
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

    /// The check's answer or refusal. A script just written can be "busy" for an instant: another
    /// test's child, forked in the moment the script was open for writing, holds that descriptor
    /// until it execs. That race is the tests' own (headingd's child is its own binary), so it is
    /// retried, a few times.
    private func parse(_ text: String, _ script: Script, timeout: Duration = .seconds(5)) -> Result<TOMLDocument, ConfigurationError> {
        for _ in 1...20 {
            do throws(ConfigurationError) {
                return .success(try IsolatedTOMLCheck.parse(text, path: "/etc/x.toml", executable: script.path, timeout: timeout))
            } catch where error.reason.contains("Text file busy") {
                usleep(50_000)
            } catch {
                return .failure(error)
            }
        }
        return .failure(ConfigurationError(origin: "/etc/x.toml", key: nil, reason: "the script stayed busy"))
    }

    /// The check's refusal, if any. A script just written can be "busy" for an instant: another
    /// test's child, forked in the moment the script was open for writing, holds that descriptor
    /// until it execs. That race is the tests' own (headingd's child is its own binary), so it is
    /// retried, a few times.
    private func refusal(_ text: String, _ script: Script, timeout: Duration = .seconds(5)) -> ConfigurationError? {
        if case .failure(let error) = parse(text, script, timeout: timeout) { return error }
        return nil
    }

    @Test func aChildThatReadsEverythingAndAnswersADocumentIsTheAnswer() throws {
        // 200 KB: more than a socket buffer, so the parent must feed the child as it reads.
        let text = String(repeating: "# a comment line of some length\n", count: 6_400)
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-child-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let outcome = parse(text, try Script("cat > \(copy); printf 'T7:outputsI15:simulation.rate2:50'; exit 0"))
        let expected = TOMLDocument(entries: [.init(name: "outputs", value: .table), .init(name: "simulation.rate", value: .integer(50))])
        #expect(try outcome.get() == expected)
        #expect(try String(contentsOfFile: copy, encoding: .utf8) == text)
        // An answer larger than a socket buffer is read as it comes.
        let long = try parse("", Script("cat > /dev/null; i=0; while [ $i -lt 4000 ]; do printf 'S20:simulation.source_id24:a value of 24 bytes.....'; i=$((i+1)); done")).get()
        #expect(long.entries.count == 4000)
    }

    @Test func aChildThatAnswersNonsenseOrFailsIsARefusal() throws {
        #expect(refusal("a = 1\n", try Script("cat > /dev/null; printf 'S99:x'"))?.reason.contains("answered what is not a parsed document") == true)
        #expect(refusal("a = 1\n", try Script("cat > /dev/null; exit 1"))?.reason.contains("exited with status 1") == true)
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
            _ = try IsolatedTOMLCheck.parse("a = 1\n", path: "/etc/x.toml", executable: "/nonexistent/headingd")
            error = nil
        } catch let refusal { error = refusal }
        #expect(error?.reason.contains("cannot start /nonexistent/headingd") == true)
    }
}

/// The document the child sends: what the parser made of a file, as bytes and back.
@Suite struct TOMLDocumentTests {
    @Test func aRealConfigurationGoesThroughBytesUnchanged() throws {
        let text = """
            # a comment
            format = "json"
            stale_after = 2.5
            verbose = true
            sources = ["gpsd://127.0.0.1:2947", "tcp://plotter:10110?talker=HE"]
            [simulation]
            rate = 10
            [outputs.signalk]
            listen = "127.0.0.1:3000"
            "odd key\\twith tab" = "line\\nbreak, ünïcode"
            when = 1979-05-27T07:32:00Z
            mixed = [1, "a"]
            """
        let document = TOMLDocument(parsing: text)
        #expect(document.parseError == nil)
        #expect(document.entries.contains(.init(name: "stale_after", value: .double(2.5))))
        #expect(document.entries.contains(.init(name: "sources", value: .stringArray(["gpsd://127.0.0.1:2947", "tcp://plotter:10110?talker=HE"]))))
        #expect(document.entries.contains(.init(name: "outputs.signalk.odd key\twith tab", value: .string("line\nbreak, ünïcode"))))
        #expect(document.entries.contains(.init(name: "outputs.signalk.when", value: .other)))
        #expect(document.entries.contains(.init(name: "outputs.signalk.mixed", value: .other)))
        // A table comes before what it holds.
        let table = try #require(document.entries.firstIndex(of: .init(name: "outputs.signalk", value: .table)))
        let listen = try #require(document.entries.firstIndex(of: .init(name: "outputs.signalk.listen", value: .string("127.0.0.1:3000"))))
        #expect(table < listen)
        #expect(TOMLDocument(decoding: document.encoded) == document)
    }

    @Test func aParseErrorGoesThroughBytesWithItsLine() throws {
        let document = TOMLDocument(parsing: "a = 1\nb = = 2\n")
        let error = try #require(document.parseError)
        #expect(error.line == 2)
        #expect(TOMLDocument(decoding: document.encoded) == document)
    }

    /// Any bytes: a document or nil, never a trap, an endless loop or a huge allocation.
    @Test func hostileBytesDecodeToNothingOrADocument() {
        var generator = SystemRandomNumberGenerator()
        let valid = TOMLDocument(entries: [.init(name: "sources", value: .stringArray(["a", "b"])), .init(name: "x", value: .double(-0.0))]).encoded
        for _ in 0..<20_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.insert(UInt8.random(in: 0x30...0x3A, using: &generator), at: Int.random(in: 0...bytes.count, using: &generator))
                default: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "A")] }
            }
            if let document = TOMLDocument(decoding: bytes) {
                #expect(document.entries.count <= bytes.count)
            }
        }
        #expect(TOMLDocument(decoding: Array("A1:x999999999:".utf8)) == nil)
        #expect(TOMLDocument(decoding: Array("A1:x9999999999999:".utf8)) == nil)
    }
}
