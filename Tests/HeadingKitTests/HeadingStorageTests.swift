// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

/// `Heading` keeps its optional angles as plain doubles and a bit each: smaller copies, with the
/// same values, equality and JSON as the optionals it replaced.
struct HeadingStorageTests {
    private static let full = Heading(
        trueHeading: 10.5, magneticHeading: 8, headingAccuracy: 0.2, timestamp: Date(timeIntervalSince1970: 1_800_000_000),
        source: "s", kind: .gnssCompass, pitch: -1, roll: 0, magneticVariation: 2.5, deviation: -0.5, variationOrigin: .device,
        position: GeographicPosition(latitude: 55.5, longitude: 12.5, altitude: 3)
    )
    private static let sparse = Heading(trueHeading: nil, magneticHeading: 0, timestamp: Date(timeIntervalSince1970: 0), source: "t")

    /// 116 bytes: seven doubles, the date, the source name (one word), kind, position, origin and
    /// the bits. Past 128 bytes every copy becomes a call to `memmove`.
    @Test func aHeadingIsAtMost116Bytes() {
        #expect(MemoryLayout<Heading>.size <= 116, "\(MemoryLayout<Heading>.size) bytes; source \(MemoryLayout<InternedName>.size), position \(MemoryLayout<GeographicPosition?>.size), kind \(MemoryLayout<Heading.Kind>.size), origin \(MemoryLayout<Heading.VariationOrigin?>.size), date \(MemoryLayout<Date>.size)")
    }

    @Test func unknownIsNilAndZeroIsKnown() {
        #expect(Self.sparse.trueHeading == nil)
        #expect(Self.sparse.magneticHeading == 0)
        #expect(Self.sparse.pitch == nil && Self.sparse.roll == nil && Self.sparse.deviation == nil)
        #expect(Self.full.roll == 0)
        #expect(Self.full.pitch == -1 && Self.full.headingAccuracy == 0.2 && Self.full.deviation == -0.5)
        // A known zero and an unknown value are different headings.
        let zeroRoll = Heading(trueHeading: nil, magneticHeading: 0, timestamp: Date(timeIntervalSince1970: 0), source: "t", roll: 0)
        #expect(zeroRoll != Self.sparse)
    }

    @Test func jsonRoundTripsAndLeavesUnknownKeysOut() throws {
        for heading in [Self.full, Self.sparse] {
            let data = try JSONEncoder().encode(heading)
            #expect(try JSONDecoder().decode(Heading.self, from: data) == heading)
        }
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.sparse)) as? [String: Any])
        #expect(Set(object.keys) == ["magneticHeading", "timestamp", "source", "kind"])
    }
}
