// headingd — libFuzzer target: the stream framings (lines, UBX frames, Unicore logs) over arbitrary bytes.
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

/// Splits each input into reads at sizes the input's first byte chooses, as a serial line or a
/// socket hands bytes over, through the UBX splitter (UBX frames and NMEA lines interleaved) and
/// the line assembler; every frame goes to the RELPOSNED decoder and every line to the Unicore
/// decoder and the line decoder. What must hold whatever the bytes: no trap, lines and frames
/// within their bounds, headings on the circle with finite values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFramings(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let step = Int(data[0] % 64) + 1
    var splitter = UBXFrameSplitter(maximumLineLength: 1024)
    var lines = LineAssembler(maximumLineLength: 1024)
    var decoder = HeadingLineDecoder(path: nil, sourceName: "fuzz", timestamping: .reception)
    var number = 0
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    func check(_ report: HeadingSourceReport?) {
        guard let heading = report?.heading else { return }
        for value in [heading.trueHeading, heading.magneticHeading].compactMap({ $0 }) {
            precondition(value.isFinite && value >= 0 && value < 360, "heading \(value) off the circle")
        }
        for value in [heading.pitch, heading.roll, heading.headingAccuracy].compactMap({ $0 }) { precondition(value.isFinite) }
    }
    let handle: (StreamPiece) -> Void = { piece in
        switch piece {
        case .line(let line):
            precondition(line.count <= 1024, "a line of \(line.count) bytes passed the bound")
            number += 1
            if let reading = try? UnicoreHeadingDecoder.decode(line) { check(.heading(reading.heading(at: now, source: "fuzz"))) }
            check(decoder.decode(line, number: number, receivedAt: now).report)
        case .ubxFrame(let frame):
            precondition(frame.count <= UBXFrameSplitter.maximumPayload + 4, "a frame of \(frame.count) bytes passed the bound")
            if let reading = try? UBXRelativePositionDecoder.decode(frame) { check(decoder.report(for: reading, receivedAt: now)) }
        case .overlong, .fragment, .badFrame:
            break
        }
    }
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + step)
        let read = UnsafeBufferPointer(rebasing: bytes[start..<end])
        splitter.append(read, handle)
        lines.append(read, handle)
        lines.flushCompleteSentence(handle)
        start = end
    }
    _ = splitter.discard()
    _ = lines.discard()
    return 0
}
