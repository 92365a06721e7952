// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Tells from a file's first bytes whether it is text HeadingKit can replay (NMEA 0183, gpsd JSON,
/// gpsd regression logs) or a binary vendor protocol it cannot — so that a binary file is reported
/// once, not as thousands of bad lines. More than a tenth of the bytes must be binary: stray
/// binary bytes in a text file are bad lines, and the good lines around them are delivered.
package enum ReplayFormatInspector {
    /// How many bytes are inspected.
    package static let inspectedLength = 4096

    /// Why the bytes cannot be replayed, or `nil` when they look like text.
    /// - Parameter prefix: The file's first bytes (up to ``inspectedLength``).
    /// - Returns: A reason naming the protocol where it is recognized.
    package static func unsupportedFormat(of prefix: some Collection<UInt8>) -> String? {
        let bytes = Array(prefix)
        // Skip the '#' comment header of gpsd's regression logs: it is text whatever follows.
        var start = 0
        while start < bytes.count, bytes[start] == UInt8(ascii: "#") {
            guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            start = newline + 1
        }
        let body = bytes[start...]
        guard !body.isEmpty else { return nil }
        // The content as a whole decides: a text file with a stray sync pair (0xB5 0x62 is "µb" in
        // UTF-8) is text, and its bad line is reported on its own; only mostly binary content is
        // refused, and a sync pair then names the protocol.
        let binary = body.filter { ($0 < 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09) || $0 > 0x7E }.count
        guard binary * 10 > body.count else { return nil }
        if contains(body, [0xA0, 0xA2]) { return "binary SiRF protocol, which HeadingKit does not read; replay it through gpsd" }
        if contains(body, [0xB5, 0x62]) { return "binary u-blox UBX protocol, which HeadingKit does not read; replay it through gpsd" }
        return "binary data, not NMEA 0183 or gpsd JSON"
    }

    private static func contains(_ bytes: ArraySlice<UInt8>, _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count else { return false }
        var index = bytes.startIndex
        while index <= bytes.endIndex - pattern.count {
            if bytes[index] == pattern[0], bytes[index + 1] == pattern[1] { return true }
            index += 1
        }
        return false
    }
}
