// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import HeadingKitTesting
import Testing

/// u-blox UBX framing and NAV-RELPOSNED, as a ZED-F9P moving-base rover sends them.
struct UBXTests {
    static func relativePosition(headingE5: Int32, accuracyE5: UInt32, flags: UInt32, version: UInt8 = 1) -> [UInt8] {
        UBXFrameBuilder.relativePosition(headingE5: headingE5, accuracyE5: accuracyE5, flags: flags, version: version)
    }

    static func frame(class messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
        UBXFrameBuilder.frame(class: messageClass, id: id, payload: payload)
    }

    static let validFlags = UBXFrameBuilder.validHeadingFlags

    private func split(_ chunks: [[UInt8]]) -> [String] {
        var splitter = UBXFrameSplitter(maximumLineLength: 1024)
        var out: [String] = []
        for chunk in chunks {
            chunk.withUnsafeBufferPointer { bytes in
                splitter.append(bytes) { piece in
                    switch piece {
                    case .line(let line): out.append(String(decoding: line, as: UTF8.self))
                    case .ubxFrame(let frame):
                        let reading = try? UBXRelativePositionDecoder.decode(frame)
                        out.append("frame \(frame[0]),\(frame[1]) heading \(reading?.trueHeading.map { "\($0)" } ?? "none")")
                    case .badFrame(let reason): out.append("bad: \(reason)")
                    case .overlong(let length): out.append("overlong \(length)")
                    case .fragment(let length): out.append("fragment \(length)")
                    }
                }
            }
        }
        return out
    }

    @Test func aFixedMovingBaseHeadingIsReadWithItsAccuracy() throws {
        let bytes = Self.relativePosition(headingE5: 12_345_678, accuracyE5: 25_000, flags: Self.validFlags)
        let reading = try #require(try UBXRelativePositionDecoder.decode(bytes[2..<(bytes.count - 2)]))
        #expect(abs(reading.trueHeading! - 123.45678) < 1e-9)
        #expect(abs(reading.accuracy! - 0.25) < 1e-9)
        #expect(reading.kind == .gnssCompass)
    }

    @Test func withoutEveryValidityFlagThereIsNoHeading() throws {
        for flags in [Self.validFlags & ~1, Self.validFlags & ~(1 << 2), Self.validFlags & ~(1 << 8), (Self.validFlags & ~(3 << 3)) | 1 << 3] {
            let bytes = Self.relativePosition(headingE5: 9_000_000, accuracyE5: 100, flags: flags)
            #expect(try UBXRelativePositionDecoder.decode(bytes[2..<(bytes.count - 2)]) == nil, "flags \(String(flags, radix: 2))")
        }
        let old = Self.relativePosition(headingE5: 0, accuracyE5: 0, flags: 0, version: 0)
        #expect(try UBXRelativePositionDecoder.decode(old[2..<(old.count - 2)]) == nil)
        let outOfRange = Self.relativePosition(headingE5: 36_100_000, accuracyE5: 0, flags: Self.validFlags)
        #expect(throws: LineDecodingError.self) { try UBXRelativePositionDecoder.decode(outOfRange[2..<(outOfRange.count - 2)]) }
    }

    @Test func framesAndNMEALinesInterleavedAndSplitAnywhereAreToldApart() {
        let frame = Self.relativePosition(headingE5: 4_500_000, accuracyE5: 100, flags: Self.validFlags)
        let stream = Array("$GNRMC,1,A\r\n".utf8) + frame + Array("$GNGGA,2\r\n".utf8) + Self.frame(class: 0x01, id: 0x07, payload: [1, 2, 3])
        let expected = ["$GNRMC,1,A", "frame 1,60 heading 45.0", "$GNGGA,2", "frame 1,7 heading none"]
        #expect(split([stream]) == expected)
        for cut in 1..<stream.count {  // every place a read can end
            #expect(split([Array(stream[..<cut]), Array(stream[cut...])]) == expected, "cut at \(cut)")
        }
    }

    @Test func aBadChecksumOrAnAbsurdLengthIsRefusedAndReadingGoesOn() {
        var corrupt = Self.relativePosition(headingE5: 4_500_000, accuracyE5: 100, flags: Self.validFlags)
        corrupt[30] ^= 0xFF
        let huge: [UInt8] = [0xB5, 0x62, 0x01, 0x3C, 0xFF, 0xFF]
        let out = split([corrupt + Array("$GPHDT,1.0,T\r\n".utf8) + huge + Array("$GPHDT,2.0,T\r\n".utf8)])
        #expect(out.first?.hasPrefix("bad: UBX frame of class 0x1 ID 0x3c has a wrong checksum") == true, "\(out)")
        #expect(out.contains("$GPHDT,1.0,T"))
        #expect(out.contains { $0.hasPrefix("bad: UBX frame of class 0x1 claims 65535 bytes") })
        #expect(out.last == "$GPHDT,2.0,T")
    }
}
