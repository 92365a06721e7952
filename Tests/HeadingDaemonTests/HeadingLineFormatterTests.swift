// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

@testable import HeadingDaemon

struct HeadingLineFormatterTests {
    private let timestamp = Date(timeIntervalSince1970: 1_800_000_000.25)

    @Test func jsonHasTheRequiredKeysWithNullForUnknown() throws {
        let heading = Heading(trueHeading: nil, magneticHeading: 12.5, timestamp: timestamp, source: "s")
        let line = HeadingLineFormatter(format: .json).line(for: heading)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["trueHeading"] is NSNull)
        #expect(object["magneticHeading"] as? Double == 12.5)
        #expect(object["accuracy"] is NSNull)
        #expect(object["timestamp"] as? String == "2027-01-15T08:00:00.250Z")
        #expect(object["source"] as? String == "s")
        #expect(object["kind"] as? String == "compass")
        #expect(object["pitch"] == nil)
    }

    @Test func jsonEscapesSourceNames() throws {
        let name = "replay:/tmp/a \"quoted\"\\path\n\u{1}.nmea"
        let heading = Heading(trueHeading: 1, magneticHeading: nil, timestamp: timestamp, source: name)
        let line = HeadingLineFormatter(format: .json).line(for: heading)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["source"] as? String == name)
    }

    @Test func jsonKeepsTheDevicesDigits() throws {
        let heading = Heading(
            trueHeading: 274.07, magneticHeading: nil, headingAccuracy: 0.2, timestamp: timestamp, source: "s",
            pitch: -1.25, roll: 3, magneticVariation: -3.1
        )
        let line = HeadingLineFormatter(format: .json).line(for: heading)
        #expect(line.contains("\"trueHeading\":274.07,"))
        #expect(line.contains("\"pitch\":-1.25"))
        #expect(line.contains("\"magneticVariation\":-3.1"))
    }

    /// One formatter keeps the last second's calendar fields and the last source's quoted name:
    /// a line must not show them once the heading's own differ.
    @Test func jsonLinesFromOneFormatterMatchLinesFromFreshOnes() {
        let formatter = HeadingLineFormatter(format: .json)
        let seconds: [TimeInterval] = [1_800_000_000.25, 1_800_000_000.9994, 1_800_000_000.9996, 1_800_000_001, 1_799_999_999.5, -0.4, -1.5, 1_800_086_400]
        for (index, second) in seconds.enumerated() {
            let heading = Heading(trueHeading: 1, magneticHeading: nil, timestamp: Date(timeIntervalSince1970: second), source: "s\(index % 3)")
            #expect(formatter.line(for: heading) == HeadingLineFormatter(format: .json).line(for: heading))
        }
        let last = Heading(trueHeading: 1, magneticHeading: nil, timestamp: Date(timeIntervalSince1970: 1_800_086_400), source: "s")
        #expect(formatter.line(for: last).contains(#""timestamp":"2027-01-16T08:00:00.000Z","source":"s""#))
    }

    /// Years the digit-by-digit path cannot write in four digits go to Foundation, never cut.
    @Test func timestampsOutsideFourDigitYearsAreNotCut() {
        let late = Date(timeIntervalSince1970: 400_000_000_000)  // the year 14645
        let heading = Heading(trueHeading: 1, magneticHeading: nil, timestamp: late, source: "s")
        let expected = late.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        #expect(HeadingLineFormatter(format: .json).line(for: heading).contains(#""timestamp":"\#(expected)""#))
        #expect(expected.hasPrefix("14645"))
    }

    @Test func textNamesSourceBothHeadingsAndKind() {
        let heading = Heading(trueHeading: 5, magneticHeading: nil, headingAccuracy: 0.5, timestamp: timestamp, source: "s")
        #expect(
            HeadingLineFormatter(format: .text).line(for: heading)
                == "2027-01-15T08:00:00.250Z s true 5.00° magnetic unknown ±0.50° (compass)"
        )
    }
}
