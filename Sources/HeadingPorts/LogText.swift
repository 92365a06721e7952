// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

/// Text from outside — a device's name, a peer's host, a file's content, a user's parameter — made
/// fit for one log line: control characters escaped (a newline in a device's `name` cannot forge a
/// line, an escape sequence cannot move a terminal's cursor) and a length bounded; and lists cut to
/// their first few ("and 9,995 more"), so that a message stays a line whatever the input holds.
package enum LogText {
    /// The longest text shown from one value, in characters, before "…".
    package static let defaultLimit = 120
    /// How many items of a list are named before "and N more".
    package static let defaultListed = 5

    /// `text` with control characters escaped (`\n`, `\t`, `\r`, other C0 and C1 controls and DEL as
    /// `\u{1B}`) and cut at `limit` characters with "…".
    /// - Parameters:
    ///   - text: The text from outside.
    ///   - limit: The most characters shown.
    package static func printable(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var result = ""
        var shown = 0
        for scalar in text.unicodeScalars {
            guard shown < limit else { return result + "…" }
            shown += 1
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value):
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The first `listed` items joined with ", ", then "and N more" for the rest.
    /// - Parameters:
    ///   - items: The items, already printable.
    ///   - listed: How many are named.
    package static func list(_ items: some Collection<String>, listed: Int = defaultListed) -> String {
        let named = items.prefix(listed).joined(separator: ", ")
        let more = items.count - min(items.count, listed)
        return more > 0 ? "\(named) and \(more) more" : named
    }
}
