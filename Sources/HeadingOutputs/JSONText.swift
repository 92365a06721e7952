// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

/// JSON text written by hand where an encoder would cost more than the line it writes: headingd's
/// JSON heading lines, its Signal K messages, and the TOML strings of `--check-config` (a TOML
/// basic string escapes the same way).
public enum JSONText {
    /// `text` as a JSON string literal, quotes included; `"`, `\` and control characters escaped.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
