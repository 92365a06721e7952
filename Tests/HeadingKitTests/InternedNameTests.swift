// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Testing

/// A heading's source name is kept once per process, so copies of a heading retain nothing; past
/// its table's capacity a name is still itself, only no longer shared.
struct InternedNameTests {
    @Test func theSameNameIsKeptOnceAndEqual() {
        let table = InternedName.Table(capacity: 4)
        let first = InternedName("gpsd://127.0.0.1:2947", in: table)
        let second = InternedName(String("gpsd://127.0.0.1:2947".reversed().reversed()), in: table)
        let other = InternedName("replay:/var/lib/headingd/a.nmea", in: table)
        #expect(first.isKept && second.isKept && other.isKept)
        #expect(first == second && first.hashValue == second.hashValue)
        #expect(first != other)
        #expect(first.string == "gpsd://127.0.0.1:2947" && other.description == "replay:/var/lib/headingd/a.nmea")
        withExtendedLifetime(table) {}
    }

    @Test func pastItsCapacityANameIsHeldAndStillComparesByItsText() {
        let table = InternedName.Table(capacity: 2)
        let kept = (0..<2).map { InternedName("source \($0) with a name longer than fifteen bytes", in: table) }
        let held = InternedName("source 2 with a name longer than fifteen bytes", in: table)
        let heldAgain = InternedName("source 2 with a name longer than fifteen bytes", in: table)
        #expect(kept[0].isKept && kept[1].isKept)
        #expect(!held.isKept && !heldAgain.isKept)
        #expect(held == heldAgain && held.hashValue == heldAgain.hashValue)
        #expect(held != kept[0] && kept[0] != kept[1])
        #expect(held.string == "source 2 with a name longer than fifteen bytes")
        // A kept name is still found when the table is full.
        #expect(InternedName("source 1 with a name longer than fifteen bytes", in: table) == kept[1])
        #expect(InternedName("source 1 with a name longer than fifteen bytes", in: table).isKept)
        withExtendedLifetime(table) {}
    }

    @Test func aNameLongerThanTheKeptLengthIsHeldNotKept() {
        let table = InternedName.Table(capacity: 4)
        let long = String(repeating: "n", count: InternedName.Table.maximumKeptLength + 1)
        let name = InternedName(long, in: table)
        #expect(!name.isKept && name.string == long)
        #expect(name == InternedName(long, in: table))
        #expect(InternedName(String(long.dropLast()), in: table).isKept)
        withExtendedLifetime(table) {}
    }

    @Test func decodedHeadingsCarryAKeptSourceName() throws {
        var decoder = HeadingLineDecoder(path: nil, sourceName: "replay:/tmp/interned-name-test.nmea")
        let output = decoder.decode(Array("$HEHDT,123.4,T*2B".utf8), number: 1, receivedAt: Date(timeIntervalSince1970: 0))
        guard case .heading(let heading) = output.report else {
            Issue.record("no heading from a valid HDT: \(output.report as Any)")
            return
        }
        #expect(heading.source == "replay:/tmp/interned-name-test.nmea")
        #expect(heading.sourceName.isKept)
        // A heading made by the public initializer carries the same kept name.
        let made = Heading(trueHeading: 1, magneticHeading: nil, timestamp: .now, source: "replay:/tmp/interned-name-test.nmea")
        #expect(made.sourceName == heading.sourceName)
    }
}
