// headingd
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
import HeadingPorts
#endif
import Configuration
import Foundation
import HeadingKit

/// Reads headingd's settings from every layer, each checked on its own so that an error names
/// its file, variable or flag, then layered with swift-configuration's `ConfigReader` (the first
/// provider that has a key wins):
///
/// 1. command-line flags;
/// 2. `HEADINGD_*` environment variables (`HEADINGD_SIMULATION_RATE` for `simulation.rate`);
/// 3. drop-ins, `conf.d/*.toml` beside the main file, later names (in byte order) over earlier;
/// 4. the main file, `/etc/headingd/headingd.toml` unless `--config` names another;
/// 5. the defaults in ``DaemonSettings``.
///
/// An unknown key, a value of the wrong type or out of range, or a file that is not valid TOML
/// is an error; a missing default main file or drop-in directory is not.
struct SettingsLoader: Sendable {
    /// The default main file.
    static let defaultMainFile = "/etc/headingd/headingd.toml"

    /// The main file.
    let mainFile: String
    /// Whether the main file must exist (it was named explicitly).
    let mainFileIsRequired: Bool
    /// The environment to read `HEADINGD_*` from.
    let environment: [String: String]
    /// Values given as command-line options, by key name; checked by ``load()`` with the same
    /// schema (``SettingKey/validate(_:)``) as the files and the environment.
    let flags: [String: ConfigContent]
    /// The executable that checks each file's text in a child process before it is parsed here
    /// (``IsolatedTOMLCheck``): headingd itself (`/proc/self/exe`) in the daemon; `nil` parses
    /// in-process only, for callers that are not headingd.
    var parserExecutable: String? = nil

    /// The drop-in directory: `conf.d` beside the main file.
    var dropInDirectory: String {
        URL(fileURLWithPath: mainFile).deletingLastPathComponent().appendingPathComponent("conf.d").path
    }

    /// Loads and layers every source.
    /// - Returns: The effective settings, and the files read, in the order read.
    func load() throws(ConfigurationError) -> (settings: DaemonSettings, files: [String]) {
        var files: [String] = []
        var fileProviders: [InMemoryProvider] = []
        if FileManager.default.fileExists(atPath: mainFile) || mainFileIsRequired {
            fileProviders.append(try Self.provider(forFile: mainFile, parserExecutable: parserExecutable))
            files.append(mainFile)
        }
        let dropIns = ((try? FileManager.default.contentsOfDirectory(atPath: dropInDirectory)) ?? [])
            .filter { $0.hasSuffix(".toml") }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        for name in dropIns {
            let path = URL(fileURLWithPath: dropInDirectory).appendingPathComponent(name).path
            fileProviders.append(try Self.provider(forFile: path, parserExecutable: parserExecutable))
            files.append(path)
        }
        var environmentValues: [AbsoluteConfigKey: ConfigValue] = [:]
        for (variable, text) in environment where variable.hasPrefix("HEADINGD_") {
            guard let key = DaemonSettings.keys.first(where: { $0.environmentName == variable }) else {
                throw ConfigurationError(origin: "environment variable \(variable)", key: nil, reason: "is not a headingd setting")
            }
            switch key.parse(text) {
            case .success(let content): environmentValues[AbsoluteConfigKey(stringLiteral: key.name)] = ConfigValue(content, isSecret: false)
            case .failure(let error): throw ConfigurationError(origin: "environment variable \(variable)", key: key.name, reason: error.reason)
            }
        }
        var flagValues: [AbsoluteConfigKey: ConfigValue] = [:]
        for (name, content) in flags.sorted(by: { $0.key < $1.key }) {
            guard let key = DaemonSettings.keys.first(where: { $0.name == name }) else {
                throw ConfigurationError(origin: "the command line", key: name, reason: "is not a headingd setting")
            }
            switch key.validate(content) {
            case .success(let valid): flagValues[AbsoluteConfigKey(stringLiteral: name)] = ConfigValue(valid, isSecret: false)
            case .failure(let error): throw ConfigurationError(origin: "option \(key.option)", key: name, reason: error.reason)
            }
        }
        let providers: [any ConfigProvider] =
            [InMemoryProvider(name: "flags", values: flagValues), InMemoryProvider(name: "environment", values: environmentValues)]
            + fileProviders.reversed()
        let settings = DaemonSettings(reader: ConfigReader(providers: providers))
        // Checks across keys, whichever layers they came from.
        if settings.dropoutInterval != 0, settings.dropoutInterval <= settings.dropoutDuration {
            throw ConfigurationError(
                origin: "the configuration", key: "simulation.dropout_interval",
                reason: "must be 0 (no dropouts) or longer than simulation.dropout_duration (\(settings.dropoutDuration) s)"
            )
        }
        return (settings, files)
    }

    /// One TOML file as a provider, every key and value checked. Parsed in a child process when
    /// `parserExecutable` is given (``IsolatedTOMLCheck``), which sends back the parsed values:
    /// the daemon itself never runs the parser, neither its crashes nor its leaks.
    static func provider(forFile path: String, parserExecutable: String?) throws(ConfigurationError) -> InMemoryProvider {
        let text = try readText(of: path)
        let document = if let parserExecutable {
            try IsolatedTOMLCheck.parse(text, path: path, executable: parserExecutable)
        } else {
            TOMLDocument(parsing: text)
        }
        if let error = document.parseError {
            throw ConfigurationError(origin: "\(path):\(error.line)", key: nil, reason: "not valid TOML: \(error.description)")
        }
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        try flatten(document, into: &values, path: path)
        return InMemoryProvider(name: path, values: values)
    }

    /// The largest configuration file read: far above any real one, so that a hostile or
    /// mistaken path (a log, a device) is refused rather than read whole.
    static let maximumFileSize = 1 << 20

    /// A regular file's text, read by ``WholeFile`` (at most ``maximumFileSize`` bytes): not
    /// `String(contentsOfFile:)`, which leaks 4 KiB a call, and a daemon reloads for months.
    private static func readText(of path: String) throws(ConfigurationError) -> String {
        // Without waiting (a FIFO for reading would wait for a writer, forever), regular files only.
        let descriptor: Int32
        switch RegularFile.open(path) {
        case .success(let opened): descriptor = opened.descriptor
        case .failure(let failure) where failure.code == .wrongKind:
            throw ConfigurationError(origin: path, key: nil, reason: "is not a regular file (a directory, FIFO or device): not a configuration file")
        case .failure(let failure):
            let reason = failure.isMissing ? "no such file" : failure.errorNumber == EACCES ? "permission denied" : failure.reason
            throw ConfigurationError(origin: path, key: nil, reason: reason)
        }
        defer { close(descriptor) }
        let contents: WholeFile.Contents
        do {
            contents = try WholeFile.read(descriptor, limit: maximumFileSize, chunkSize: 16 * 1024)
        } catch {
            throw ConfigurationError(origin: path, key: nil, reason: "cannot be read: \(error)")
        }
        guard contents.isComplete else {
            throw ConfigurationError(origin: path, key: nil, reason: "is larger than \(maximumFileSize / 1024) KiB: not a configuration file")
        }
        let bytes = contents.bytes
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(origin: path, key: nil, reason: "cannot be read as UTF-8 text")
        }
        try checkBeforeParsing(bytes, path: path)
        return text
    }

    /// Refuses what toml++ (under TOMLKit) aborts on instead of reporting, found by fuzzing:
    /// a raw control character (TOML allows none but tab and line ends, anywhere), and a table
    /// header whose key starts with neither a bare-key character nor a quote (`[=]`, `[.a]`,
    /// `[\u{1}]`), on which its `parse_key` asserts. A line starting with `[` inside a multi-line
    /// array is held to the same rule; headingd's only array setting holds strings, so such a
    /// file was invalid for it anyway.
    private static func checkBeforeParsing(_ bytes: [UInt8], path: String) throws(ConfigurationError) {
        var line = 1
        var lineStart = 0
        for (index, byte) in bytes.enumerated() {
            if byte == 0x0A {
                line += 1
                lineStart = index + 1
                continue
            }
            if (byte < 0x20 && byte != 0x09 && byte != 0x0D) || byte == 0x7F {
                throw ConfigurationError(
                    origin: "\(path):\(line)", key: nil,
                    reason: "control character U+\(String(byte, radix: 16, uppercase: true).leftPadded(to: 4)), which TOML does not allow"
                )
            }
            guard index == lineStart else { continue }
            // A table header: '[' or '[[', blanks, then the first key.
            var cursor = index
            while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "[") else { continue }
            cursor += 1
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "[") { cursor += 1 }
            while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
            let first = cursor < bytes.count ? bytes[cursor] : 0x0A
            let startsKey = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) || "_-\"'".utf8.contains(first)
            guard startsKey else {
                throw ConfigurationError(
                    origin: "\(path):\(line)", key: nil, reason: "not valid TOML: a table header must start with a key"
                )
            }
        }
    }

    private static func flatten(
        _ document: TOMLDocument, into values: inout [AbsoluteConfigKey: ConfigValue], path: String
    ) throws(ConfigurationError) {
        for entry in document.entries {
            let full = entry.name
            if entry.value == .table {
                guard DaemonSettings.keys.contains(where: { $0.name.hasPrefix(full + ".") }) else {
                    throw ConfigurationError(origin: path, key: full, reason: "unknown table")
                }
                continue
            }
            guard let key = DaemonSettings.keys.first(where: { $0.name == full }) else {
                throw ConfigurationError(origin: path, key: full, reason: "unknown key")
            }
            let content: ConfigContent
            switch entry.value {
            case .stringArray(let strings) where key.kind == .stringList && !strings.isEmpty: content = .stringArray(strings)
            case .string(let string): content = .string(string)
            case .bool(let bool): content = .bool(bool)
            case .integer(let integer): content = .int(integer)
            case .double(let double): content = .double(double)
            case .table, .stringArray, .other: throw ConfigurationError(origin: path, key: full, reason: "must be \(key.kind.name)")
            }
            switch key.validate(content) {
            case .success(let valid): values[AbsoluteConfigKey(stringLiteral: full)] = ConfigValue(valid, isSecret: false)
            case .failure(let error): throw ConfigurationError(origin: path, key: full, reason: error.reason)
            }
        }
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
