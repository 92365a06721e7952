// headingd
// SPDX-License-Identifier: Apache-2.0

/// The configuration file headingd ships (`config/headingd.toml`, installed as
/// `/etc/headingd/headingd.toml`; `headingd --default-config` prints it), written from the
/// settings' declarations (``SettingKey``): each key's comment, examples and default, in its
/// table, so that a setting is declared once and the file cannot go stale. A test compares the
/// file in the repository with this text byte for byte.
enum ShippedConfiguration {
    /// The widest a comment line grows, `# ` included.
    static let width = 100

    /// The file's text for `keys`, their defaults those of `settings`.
    static func text(keys: [SettingKey] = DaemonSettings.keys, settings: DaemonSettings = DaemonSettings()) -> String {
        let installed = keys.filter { $0.installedValue != nil }.map(\.name)
        let header = comment(
            "headingd configuration — \(SettingsLoader.defaultMainFile)", "",
            "Every setting is shown with its default, commented out. The installed service sets "
                + "\(spoken(installed)) here (its unit passes no options, so this file decides). Drop-ins in "
                + "/etc/headingd/conf.d/*.toml override this file (later names over earlier), HEADINGD_* environment "
                + "variables override the files (HEADINGD_SOURCE, HEADINGD_SIMULATION_RATE, …), and command-line "
                + "options override all.",
            "Check the result with: headingd --check-config",
            "SIGHUP makes a running headingd read the configuration again; a bad file keeps the old one.",
            "headingd --default-config prints this file as this headingd ships it."
        )
        // The root's keys stand apart, each after an empty line; a table's follow its header.
        let body = SettingKey.byTable(keys).flatMap { group in
            let entries = group.keys.map { entry($0.key, leaf: $0.leaf, settings: settings) }
            guard let table = group.table else { return entries.flatMap { [""] + $0 } }
            return ["", "[\(table)]"] + entries.flatMap { $0 }
        }
        return (header + body).joined(separator: "\n") + "\n"
    }

    /// A key's lines: its comment, its examples and its default commented out, and the installed
    /// value when the file sets one.
    private static func entry(_ key: SettingKey, leaf: String, settings: DaemonSettings) -> [String] {
        var lines = key.fileComment.isEmpty ? [] : comment(key.fileComment)
        lines += key.fileExamples.map { "#\(leaf) = \($0)" }
        if let value = key.field.write(settings) { lines.append("#\(leaf) = \(value)") }
        if let value = key.installedValue { lines.append("\(leaf) = \(value)") }
        return lines
    }

    /// Paragraphs as comment lines, each wrapped at ``width``; an empty paragraph is a bare `#`.
    private static func comment(_ paragraphs: String...) -> [String] {
        paragraphs.flatMap { paragraph -> [String] in
            var lines: [String] = []
            var line = "#"
            for word in paragraph.split(separator: " ") {
                if line.count > 1, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = "#"
                }
                line += " " + word
            }
            lines.append(line)
            return lines
        }
    }

    /// Names as a sentence says them: `a`, `a and b`, `a, b and c`.
    private static func spoken(_ names: [String]) -> String {
        guard let last = names.last else { return "none" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }
}
