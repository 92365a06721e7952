// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// The Debian package `scripts/build-deb` makes (scripts/test builds it before the tests; run
/// alone, these tests want one built since the sources last changed), unpacked into a scratch root with `dpkg -x` and checked.
@Suite(.processSlot(limit: .seconds(840)), .serialized, .timeLimit(.minutes(20)))
struct DebianPackageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs a command; standard error is appended to standard output.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) async throws -> (status: Int32, output: String) {
        let result = try await Command.run(executable, arguments, in: directory)
        return (result.status, result.output + result.errors)
    }

    /// The package to test: `$TESTED_HEADINGD_DEB` (`scripts/test` names the one it just built), else the
    /// newest in `.build-deb` when it is newer than every source (a stale one is never tested without
    /// a word). Else the test fails at once, saying to run `scripts/build-deb`: a build from here would
    /// wait for ever on SwiftPM's lock on `.build`, which the running `swift test` holds.
    static func package() async throws -> URL {
        if let given = ProcessInfo.processInfo.environment["TESTED_HEADINGD_DEB"], !given.isEmpty { return URL(fileURLWithPath: given) }
        let directory = repository.appendingPathComponent(".build-deb")
        func newest() -> URL? {
            ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.contentModificationDateKey])) ?? [])
                .filter { $0.lastPathComponent.hasPrefix("headingd_") && $0.pathExtension == "deb" }
                .max { ($0.modificationDate ?? .distantPast) < ($1.modificationDate ?? .distantPast) }
        }
        var sourcesChanged = Date.distantPast
        for folder in ["Sources", "debian", "config", "systemd"] {
            let files = FileManager.default.enumerator(at: repository.appendingPathComponent(folder), includingPropertiesForKeys: [.contentModificationDateKey])
            while let file = files?.nextObject() as? URL { sourcesChanged = max(sourcesChanged, file.modificationDate ?? .distantPast) }
        }
        if let deb = newest(), (deb.modificationDate ?? .distantPast) > sourcesChanged { return deb }
        throw PackageUnavailable(
            description: "no package in .build-deb newer than the sources: run scripts/build-deb first, or name one in TESTED_HEADINGD_DEB "
                + "(building it from here would wait for ever on the lock this swift test holds on .build)"
        )
    }

    /// The package's files, unpacked by dpkg into a directory of their own (the caller removes it).
    static func unpacked(_ deb: URL) async throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-deb-\(UUID().uuidString)")
        let unpack = try await run("/usr/bin/dpkg", ["-x", deb.path, root.path])
        guard unpack.status == 0 else { throw PackageUnavailable(description: "dpkg -x \(deb.path) failed (\(unpack.status)): \(unpack.output)") }
        return root
    }

    @Test func thePackageHoldsTheDaemonTheUnitAndTheConfigurationAsAConffile() async throws {
        let deb = try await Self.package()
        let root = try await Self.unpacked(deb)
        defer { try? FileManager.default.removeItem(at: root) }

        let binary = root.appendingPathComponent("usr/bin/headingd").path
        #expect(FileManager.default.isExecutableFile(atPath: binary))
        let unit = try String(contentsOf: root.appendingPathComponent("lib/systemd/system/headingd.service"), encoding: .utf8)
        #expect(unit == (try String(contentsOf: Self.repository.appendingPathComponent("systemd/headingd.service"), encoding: .utf8)))
        let config = root.appendingPathComponent("etc/headingd/headingd.toml").path
        #expect(FileManager.default.fileExists(atPath: config))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("usr/share/doc/headingd/copyright").path))
        // The drop-ins headingd scan and the README name, where they say.
        for dropIn in ["serial-input.conf", "lan-feed.conf", "nmea2000-socketcan.conf", "nmea2000-ngt1.conf"] {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("usr/share/headingd/drop-ins/\(dropIn)").path), "\(dropIn)")
        }

        // The Swift runtime is inside: no Swift library is needed, and no RUNPATH points anywhere.
        let libraries = try await Self.run("/usr/bin/ldd", [binary]).output
        #expect(!libraries.contains("libswift"), "ldd: \(libraries)")
        #expect(!libraries.contains("libFoundation"), "ldd: \(libraries)")
        #expect(!(try await Self.run("/usr/bin/readelf", ["-d", binary]).output.contains("RUNPATH")))
        // The packaged binary runs, and accepts the packaged configuration.
        let check = try await Self.run(binary, ["--check-config", config])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("source = [\"gpsd://127.0.0.1:2947\"]"))  // the unit passes no options: the file decides
        #expect(check.output.contains("format = \"json\""))
        let simulated = try await Self.run(binary, ["--count", "3", "--rate", "1000", "--format", "json"])
        #expect(simulated.status == 0)
        #expect(simulated.output.split(separator: "\n").filter { $0.hasPrefix("{") }.count == 3)

        let control = root.appendingPathComponent("DEBIAN")
        #expect(try await Self.run("/usr/bin/dpkg-deb", ["-e", deb.path, control.path]).status == 0)
        let conffiles = try String(contentsOf: control.appendingPathComponent("conffiles"), encoding: .utf8)
        #expect(conffiles.contains("/etc/headingd/headingd.toml"))
        let postinst = try String(contentsOf: control.appendingPathComponent("postinst"), encoding: .utf8)
        #expect(postinst.contains("deb-systemd-helper") && postinst.contains("headingd.service"))
        let fields = try await Self.run("/usr/bin/dpkg-deb", ["-f", deb.path, "Depends"]).output
        #expect(fields.contains("libgps28"))  // loaded by the gpsd source (dlopen), named in debian/control
        #expect(fields.contains("procps"))  // ExecReload's /bin/kill
        #expect(fields.contains("libmosquitto1"))  // loaded by the MQTT output (dlopen): dpkg-shlibdeps cannot see it
        let size = (try FileManager.default.attributesOfItem(atPath: deb.path)[.size] as? Int) ?? 0
        print("headingd .deb: \(deb.lastPathComponent), \(size) bytes")
    }

    @Test func lintianReportsNoErrorsAndNoWarnings() async throws {
        let deb = try await Self.package()
        let lintian = try await Self.run("/usr/bin/lintian", ["--fail-on", "error,warning", deb.path])
        #expect(lintian.status == 0, "lintian: \(lintian.output)")
        #expect(!lintian.output.contains("E: "), "lintian: \(lintian.output)")
        #expect(!lintian.output.contains("W: "), "lintian: \(lintian.output)")
    }

    /// The packaged binary is a position-independent executable (its address randomised) that
    /// exports no symbols: the toolchain's -export-dynamic would put 32,000 in it, read at start.
    @Test func theBinaryIsAPIEThatExportsNoSymbols() async throws {
        let deb = try await Self.package()
        let root = try await Self.unpacked(deb)
        defer { try? FileManager.default.removeItem(at: root) }
        let binary = root.appendingPathComponent("usr/bin/headingd").path
        let header = try await Self.run("/usr/bin/readelf", ["-h", binary]).output
        #expect(header.contains("DYN (Position-Independent Executable file)"), "\(header)")
        // Defined dynamic symbols have a section index (Ndx) other than UND.
        let symbols = try await Self.run("/usr/bin/readelf", ["-W", "--dyn-syms", binary]).output
        let defined = symbols.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ")
            return fields.count >= 8 && fields[0].hasSuffix(":") && fields[0].dropLast().allSatisfy(\.isNumber)
                && fields[6] != "UND"
        }
        #expect(defined.isEmpty, "exported: \(defined.prefix(5))")
        #expect(symbols.contains("UND"), "no dynamic symbol table read: \(symbols.prefix(300))")
    }

    /// The man page is generated from the options' definitions, so it names every option `--help` names.
    @Test func theManPageNamesEveryOptionOfTheHelp() async throws {
        let deb = try await Self.package()
        let root = try await Self.unpacked(deb)
        defer { try? FileManager.default.removeItem(at: root) }
        let page = root.appendingPathComponent("usr/share/man/man1/headingd.1.gz").path
        #expect(FileManager.default.fileExists(atPath: page))
        let rendered = try await Command.run("/usr/bin/man", ["--warnings", "-l", page])
        #expect(rendered.status == 0)
        #expect(rendered.errors.isEmpty, "man: \(rendered.errors)")
        let binary = root.appendingPathComponent("usr/bin/headingd").path
        let help = try await Self.run(binary, ["--help"]).output
        let options = Set(help.matches(of: /--[a-z][a-z-]+/).map { String($0.output) })
        #expect(options.count > 15)
        // man renders the options' hyphens as Unicode hyphens, so read the page's source.
        let source = try await Self.run("/bin/zcat", [page]).output
        for option in options where option != "--help" {
            #expect(source.contains("Fl \(option.dropFirst())"), "the man page lacks \(option)")
        }
        #expect(!source.contains("subcommand"))
    }
}

extension URL {
    fileprivate var modificationDate: Date? { try? resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate }
}

/// Why there is no package to test, said as the test's failure.
private struct PackageUnavailable: Error, CustomStringConvertible {
    let description: String
}
