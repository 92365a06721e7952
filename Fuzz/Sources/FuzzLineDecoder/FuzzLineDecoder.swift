// headingd — libFuzzer target: HeadingLineDecoder over arbitrary bytes.
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

/// Feeds each input to the line decoder as lines (split at LF, as a replay and the gpsd reader
/// hand them over), checking what must hold whatever the bytes: no trap, and every heading it
/// gives lies on the circle with finite values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var decoder = HeadingLineDecoder(path: "fuzz.nmea", sourceName: "fuzz", minimumCourseSpeed: 0.5)
    var strict = HeadingLineDecoder(path: nil, sourceName: "fuzz", timestamping: .reception, requiresChecksum: true)
    var number = 0
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        number += 1
        guard line.count <= HeadingLineDecoder.maximumLineLength else {
            _ = decoder.overlongLine(length: line.count, number: number, receivedAt: Date(timeIntervalSince1970: 1_800_000_000))
            continue
        }
        for output in [
            decoder.decode(line, number: number, receivedAt: Date(timeIntervalSince1970: 1_800_000_000)),
            strict.decode(line, number: number, receivedAt: Date(timeIntervalSince1970: 1_800_000_000)),
        ] {
            guard let heading = output.report?.heading else { continue }
            for value in [heading.trueHeading, heading.magneticHeading].compactMap({ $0 }) {
                precondition(value.isFinite && value >= 0 && value < 360, "heading \(value) off the circle from '\(String(decoding: line, as: UTF8.self))'")
            }
            for value in [heading.pitch, heading.roll, heading.headingAccuracy, heading.magneticVariation, heading.deviation].compactMap({ $0 }) {
                precondition(value.isFinite, "a value that is not finite from '\(String(decoding: line, as: UTF8.self))'")
            }
            precondition(heading.timestamp.timeIntervalSince1970.isFinite)
        }
    }
    return 0
}
