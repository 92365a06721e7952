// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration
import Foundation

/// The settings' command-line options, read from their declarations (``DaemonSettings/keys``)
/// rather than declared again one property each: `--stale-after 3` is the key `stale_after`,
/// parsed and checked as its environment variable is, and `--help` and the man page list it with
/// the help its declaration gives. What is left (`--config`, `--check-config`, `--count`,
/// `--version`, `--help`, unknown options) is ArgumentParser's.
///
/// A value may start with '-' as a separate argument (`--position -33.86,151.21`). A flag (a
/// true-or-false key) takes no value. A list is comma-separated (`--nmea-sentences HDT,ROT`),
/// except where its declaration says the option repeats (`--source`, once for each source). An option given twice keeps the last.
enum SettingOptions {
    /// What the command line gave.
    struct Parsed: Sendable {
        /// The settings given, by key.
        var settings: [String: ConfigContent] = [:]
        /// The other arguments, in order, for ArgumentParser.
        var rest: [String] = []
        /// Whether `--help` or `-h` was given as an option (not as another option's value).
        var asksForHelp = false
        /// Whether `--experimental-dump-help` was given as an option.
        var asksForDescription = false
    }

    /// ArgumentParser's options that take a value: their value passes with them, whatever it looks like.
    static let otherOptionsWithValues: Set<String> = ["--config", "--count"]

    /// Splits `arguments` (without the program's name) into the settings' options and the rest.
    static func parse(_ arguments: [String], keys: [SettingKey] = DaemonSettings.keys) -> Result<Parsed, ConfigurationError> {
        let byOption = Dictionary(keys.map { ($0.option, $0) }, uniquingKeysWith: { first, _ in first })
        var parsed = Parsed()
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" {
                parsed.rest += arguments[(index - 1)...]
                break
            }
            let equals = word.hasPrefix("--") ? word.firstIndex(of: "=") : nil
            let name = equals.map { String(word[..<$0]) } ?? word
            let inline = equals.map { String(word[word.index(after: $0)...]) }
            guard let key = byOption[name] else {
                parsed.rest.append(word)
                if word == "--help" || word == "-h" { parsed.asksForHelp = true }
                if word == "--experimental-dump-help" { parsed.asksForDescription = true }
                if otherOptionsWithValues.contains(name), inline == nil, index < arguments.count {
                    parsed.rest.append(arguments[index])
                    index += 1
                }
                continue
            }
            if key.isFlag {
                guard inline == nil else { return .failure(.usage("\(name) is a flag: it takes no value ('\(word.prefix(60))')")) }
                parsed.settings[key.name] = .bool(true)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                return .failure(.usage("Missing value for '\(name) <\(key.valueName ?? "value")>'"))
            }
            switch content(of: value, for: key, given: parsed.settings[key.name]) {
            case .success(let content): parsed.settings[key.name] = content
            case .failure(let error):
                return .failure(ConfigurationError(origin: "option \(name)", key: key.name, reason: error.reason))
            }
        }
        return .success(parsed)
    }

    /// An option's text as a value of its key's kind (its bounds are checked with every layer's).
    private static func content(of text: String, for key: SettingKey, given: ConfigContent?) -> Result<ConfigContent, ConfigurationError> {
        switch key.kind {
        case .string: return .success(.string(text))
        case .stringList where key.optionRepeats:
            // One value an option: a source's own text may hold commas (deviation=0:1,90:-1).
            if case .stringArray(let earlier)? = given { return .success(.stringArray(earlier + [text])) }
            return .success(.stringArray([text]))
        case .stringList: return .success(.stringArray(text.split(separator: ",").map(String.init)))
        case .double, .integer, .bool: return key.parse(text)
        }
    }

    /// `--help`: ArgumentParser's page with the settings' options in their sections, before
    /// ``RunOptions``' section.
    static func help(columns: Int? = nil, keys: [SettingKey] = DaemonSettings.keys) -> String {
        let width = columns ?? terminalColumns
        let page = Headingd.helpMessage(columns: width)
        let sections = SettingKey.Group.allCases.compactMap { group -> String? in
            let members = keys.filter { $0.group == group }
            guard !members.isEmpty else { return nil }
            return ([group.rawValue.uppercased() + ":"] + members.map { entry($0, width: width) }).joined(separator: "\n")
        }.joined(separator: "\n\n")
        guard let run = page.range(of: "\n\(RunOptions.title.uppercased()):\n") else { return page + "\n" + sections }
        return page[..<run.lowerBound] + "\n" + sections + "\n" + page[run.lowerBound...]
    }

    /// `--experimental-dump-help` (what the man page is made from): ArgumentParser's description
    /// with the settings' options added before ``RunOptions``' section.
    static func dumpHelp(keys: [SettingKey] = DaemonSettings.keys) -> String {
        let dumped = Headingd._dumpHelp()
        guard var tool = try? JSONSerialization.jsonObject(with: Data(dumped.utf8)) as? [String: Any],
            var command = tool["command"] as? [String: Any], var arguments = command["arguments"] as? [[String: Any]]
        else { return dumped }
        let entries: [[String: Any]] = keys.sorted { groupOrder($0.group) < groupOrder($1.group) }.map { key in
            let name = ["kind": "long", "name": String(key.option.dropFirst(2))]
            return [
                "abstract": key.help, "isOptional": true, "isRepeating": key.optionRepeats, "kind": key.isFlag ? "flag" : "option",
                "names": [name], "preferredName": name, "parsingStrategy": key.isFlag ? "default" : "unconditional",
                "sectionTitle": key.group.rawValue, "shouldDisplay": true, "valueName": key.valueName ?? String(key.option.dropFirst(2)),
            ]
        }
        let at = arguments.firstIndex { ($0["sectionTitle"] as? String) == RunOptions.title } ?? 0
        arguments.insert(contentsOf: entries, at: at)
        command["arguments"] = arguments
        tool["command"] = command
        guard let data = try? JSONSerialization.data(withJSONObject: tool, options: [.prettyPrinted, .sortedKeys]) else { return dumped }
        return String(decoding: data, as: UTF8.self)
    }

    private static func groupOrder(_ group: SettingKey.Group) -> Int {
        SettingKey.Group.allCases.firstIndex(of: group) ?? 0
    }

    /// One option as ArgumentParser lays it out: the label in 2 columns, the help from column 26
    /// (on the next line when the label is longer), wrapped at `width`.
    private static func entry(_ key: SettingKey, width: Int) -> String {
        let label = key.option + (key.valueName.map { " <\($0)>" } ?? "")
        let indent = String(repeating: " ", count: 26)
        var lines: [String] = []
        var line = ""
        for word in key.help.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty, indent.count + line.count + 1 + word.count > width {
                lines.append(line)
                line = String(word)
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        let body = lines.map { indent + $0 }
        let head = "  " + label
        if head.count < indent.count, let first = lines.first {
            return ([head + String(repeating: " ", count: indent.count - head.count) + first] + body.dropFirst()).joined(separator: "\n")
        }
        return ([head] + body).joined(separator: "\n")
    }

    /// The terminal's width, as ArgumentParser takes it: `$COLUMNS`, else the terminal's, else 80.
    private static var terminalColumns: Int {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
