// headingd — NMEA2000 tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NMEA2000

/// The NMEA 2000 recordings in `Tests/Fixtures/nmea2000` (canboat's samples, Apache-2.0: see the
/// README there) and the values canboat's `analyzer` decoded from them.
enum N2KFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/nmea2000")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func lines(_ name: String) throws -> [String] {
        try String(contentsOfFile: path(name), encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
    }

    /// One Vessel Heading as canboat's analyzer printed it (0.1° resolution).
    struct Expected: Equatable {
        var source: UInt8
        var heading: Double?
        var deviation: Double?
        var variation: Double?
        var reference: String
    }

    static func expected(_ name: String) throws -> [Expected] {
        try lines(name).dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return Expected(
                source: UInt8(fields[0])!, heading: Double(fields[1]), deviation: Double(fields[2]), variation: Double(fields[3]),
                reference: fields[4]
            )
        }
    }

    /// Every message in a recording, in order, fast packets joined: each to `take`, its payload valid during the call.
    static func forEachMessage(in name: String, _ take: (NMEA2000Message) -> Void) throws {
        var decoder = CANTextLineDecoder()
        var assembler = FastPacketAssembler()
        for line in try lines(name) {
            var bytes = Array(line.utf8)
            while bytes.first == 0x20 { bytes.removeFirst() }
            guard let format = CANTextFormat.of(bytes) else { continue }
            let decoded = try bytes.withUnsafeBufferPointer { try decoder.decode($0, format: format) }
            switch decoded.content {
            case .frame(let frame): assembler.accept(frame, take)
            case .message(let priority, let pgn, let source, let destination, _):
                decoder.withPayload { take(NMEA2000Message(priority: priority, pgn: pgn, source: source, destination: destination, payload: $0)) }
            }
        }
    }

    /// Every Vessel Heading in a recording, decoded by this module, in the analyzer's terms.
    static func decodedHeadings(_ name: String) throws -> [Expected] {
        var found: [Expected] = []
        try forEachMessage(in: name) { message in
            guard let heading = VesselHeading(message) else { return }
            let reference = switch heading.reference {
            case .true: "True"
            case .magnetic: "Magnetic"
            case .error: "Error"
            case .notAvailable: ""
            }
            found.append(
                Expected(
                    source: message.source, heading: heading.heading.value, deviation: heading.deviation.value,
                    variation: heading.variation.value, reference: reference
                )
            )
        }
        return found
    }
}
