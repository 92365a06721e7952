// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

/// Replays a file flat out and returns what the delegate received and the summary.
func replay(
    _ path: String,
    speed: ReplayHeadingSource.Speed = .flatOut,
    loops: Bool = false,
    limit: Int = .max
) async -> (events: [HeadingEvent], summary: ReplayHeadingSource.Summary) {
    let source = ReplayHeadingSource(configuration: .init(path: path, speed: speed, loops: loops))
    let recorder = EventRecorder(limit: limit) { source.stop() }
    source.delegate = recorder
    source.start()
    let summary = await source.waitUntilFinished()
    return (recorder.events, summary)
}

/// An NMEA sentence with its checksum: `nmea("GPHDT,1.0,T")` is `$GPHDT,1.0,T*hh`.
func nmea(_ body: String) -> String {
    let checksum = body.utf8.reduce(UInt8(0), ^)
    let hex = String(checksum, radix: 16, uppercase: true)
    return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)"
}

/// A file in a fresh temporary directory, removed with it when the value goes away.
final class TemporaryFile: Sendable {
    let directory: URL
    let path: String

    init(name: String = "recording.nmea", contents: Data) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent(name).path
        try contents.write(to: URL(fileURLWithPath: path))
    }

    convenience init(lines: [String]) throws {
        try self.init(contents: Data((lines.joined(separator: "\r\n") + "\r\n").utf8))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}
