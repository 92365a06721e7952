// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import HeadingKit

/// The decoders tell sentence types apart by their packed bytes; the packed type must name the
/// same types as the strings (``NMEASentence/type``) the public API speaks of.
struct NMEASentenceTypeTests {
    @Test(arguments: [
        ("$GPHDT,1,T", NMEASentenceType.hdt), ("$HEHDM,1,M", .hdm), ("$HCHDG,1,,,,", .hdg), ("$GPTHS,1,A", .ths),
        ("$PASHR,1", .pashr), ("$PTNTHTM,1", .ptnthtm), ("$GPRMC,1", .rmc), ("$GNVTG,1", .vtg), ("$GPZDA,1", .zda),
        ("$GPGGA,1", .other), ("$GPHD,1", .other), ("$GPHDTX,1", .other), ("$PASHRX,1", .other),
        ("$PTNTHTMXY,1", .other), ("$GPHDT2,1", .other), ("$PAS,1", .other),
    ])
    func packedTypesNameTheTypesTheirStringsName(line: String, expected: NMEASentenceType) throws {
        let sentence = try NMEASentence(line)
        let type = NMEASentenceType(packed: sentence.packedType)
        #expect(type == expected, "\(line)")
        #expect(type.isAttitude == NMEAReport.isAttitudeType(sentence.type), "\(line)")
        #expect(type.isCourse == NMEAReport.isCourseType(sentence.type), "\(line)")
    }
}
