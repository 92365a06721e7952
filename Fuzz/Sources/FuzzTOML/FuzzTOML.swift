// headingd — libFuzzer target: the configuration files' parser (TOMLKit, over toml++).
// SPDX-License-Identifier: Apache-2.0

import TOMLKit

/// Parses each input as a configuration file and reads every value the way headingd's
/// `SettingsLoader` does (tables recursively, arrays of strings, strings, booleans, integers,
/// numbers), so that a hostile file can neither crash the parser nor the walk over its result.
/// (`SettingsLoader` itself lives in the executable target, which this package cannot import;
/// its checks on top are plain Swift comparisons.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTOML(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // What SettingsLoader refuses before parsing: over 1 MiB, not UTF-8, a raw control character
    // but tab and line ends, a table header that does not start with a key (toml++ asserted on
    // "[\u{1}]" and "[=]", found by this target). Kept in step with SettingsLoader.checkBeforeParsing.
    guard size <= 1 << 20, let text = String(validating: bytes, as: UTF8.self),
        !bytes.contains(where: { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D) || $0 == 0x7F }),
        !text.split(separator: "\n", omittingEmptySubsequences: false).contains(where: isBadHeader)
    else { return 0 }
    guard let table = try? TOMLTable(string: text) else { return 0 }
    walk(table, depth: 0)
    return 0
}

/// A line that is a table header whose first key starts with neither a bare-key character nor a quote.
private func isBadHeader(_ line: Substring) -> Bool {
    var rest = line.drop { $0 == " " || $0 == "\t" }
    guard rest.first == "[" else { return false }
    rest = rest.dropFirst()
    if rest.first == "[" { rest = rest.dropFirst() }
    rest = rest.drop { $0 == " " || $0 == "\t" }
    guard let first = rest.first else { return true }
    return !(first.isASCII && (first.isLetter || first.isNumber || "_-\"'".contains(first)))
}

private func walk(_ table: TOMLTable, depth: Int) {
    for name in table.keys {
        guard let value = table[name] else { continue }
        if let nested = value.table {
            if depth < 64 { walk(nested, depth: depth + 1) }
            continue
        }
        if let array = value.array { _ = array.compactMap(\.string) }
        _ = value.string
        _ = value.bool
        _ = value.int
        _ = value.double
    }
}
