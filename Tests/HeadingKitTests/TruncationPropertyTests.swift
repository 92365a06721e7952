// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

/// A line cut short never gives a wrong heading: for every supported sentence and gpsd report,
/// every prefix is either refused (a fault, or nothing) or gives exactly the complete line's heading.
struct TruncationPropertyTests {
    /// One complete line of each kind the decoder reads, with and without checksums.
    static let lines: [String] = [
        "$GPHDT,274.07,T*03",
        "$GPHDT,274.07,T",
        "$HCHDM,238.5,M",
        "$SDHDG,229.8,,,1.3,E*36",
        "$HCHDG,101.1,2.5,W,3.25,E",
        "$GPTHS,359.50,A*0D",
        "$PASHR,204132.000,010.51,T,+00.39,-00.79,-00.84,0.151,0.075,0.555,1,0*03",
        "$PTNTHTM,223.4,N,1.69,N,-4.3,N,1364,2454",
        "$GPRMC,120001.00,A,5530.0000,N,01230.0000,E,10.9,146.25,221126,2.0,W,A*2C",
        "$GPRMC,120001.00,A,5530.0000,N,01230.0000,E,10.9,146.25,221126,2.0,W",
        "$GPVTG,146.25,T,148.25,M,10.9,N,20.2,K,A",
        "$GPVTG,146.25,148.25,10.9,20.2",
        #"{"class":"ATT","device":"/dev/ttyUSB0","heading":274.070,"mag_st":"N","pitch":1.5,"roll":-2.25}"#,
        #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2026-11-22T12:00:00.000Z","lat":55.5,"lon":12.5,"altHAE":10.0,"track":146.25,"magtrack":148.25,"speed":5.6}"#,
    ]

    private static func heading(of line: Substring) -> Heading? {
        var decoder = HeadingLineDecoder(path: "cut.nmea", sourceName: "cut", minimumCourseSpeed: 0.5)
        return decoder.decode(Array(line.utf8), number: 1, receivedAt: Date(timeIntervalSince1970: 1_800_000_000)).report?.heading
    }

    @Test(arguments: lines)
    func everyPrefixIsRefusedOrGivesTheWholeLinesHeading(line: String) throws {
        let whole = try #require(Self.heading(of: Substring(line)), "the complete line gives no heading: \(line)")
        var refused = 0
        for length in 1..<line.count {
            let prefix = line.prefix(length)
            guard let cut = Self.heading(of: prefix) else {
                refused += 1
                continue
            }
            // The prefix that drops only a checksum is the same sentence without one.
            #expect(cut.trueHeading == whole.trueHeading, "'\(prefix)' gave \(String(describing: cut.trueHeading))")
            #expect(cut.magneticHeading == whole.magneticHeading, "'\(prefix)' gave \(String(describing: cut.magneticHeading))")
            #expect(cut.pitch == whole.pitch && cut.roll == whole.roll && cut.headingAccuracy == whole.headingAccuracy, "'\(prefix)'")
            #expect(cut.magneticVariation == whole.magneticVariation && cut.deviation == whole.deviation, "'\(prefix)'")
        }
        #expect(refused >= line.count / 2)
    }

    @Test func aSentenceWithoutAChecksumIsRefusedWhenChecksumsAreRequired() throws {
        #expect(throws: LineDecodingError.self) { try NMEADecoder.decode(Array("$GPHDT,274.07,T".utf8), requiringChecksum: true) }
        let report = try NMEADecoder.decode(Array("$GPHDT,274.07,T*03".utf8), requiringChecksum: true)
        #expect(report.content != .none)
        var decoder = HeadingLineDecoder(path: "strict.nmea", sourceName: "strict", requiresChecksum: true)
        let output = decoder.decode(Array("$GPHDT,274.07,T".utf8), number: 3, receivedAt: Date())
        #expect(output.report?.fault?.reason == "sentence has no checksum, and checksums are required")
        #expect(output.isSkipped)
    }
}
