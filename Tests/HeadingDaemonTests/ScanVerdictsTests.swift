// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Testing

@testable import HeadingDaemon

/// What `headingd scan` says of a feed, from its survey.
struct ScanVerdictsTests {
    static func sentence(_ body: String) -> [UInt8] {
        let sum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(sum, radix: 16, uppercase: true)
        return Array("$\(body)*\(hex.count == 1 ? "0" + hex : hex)".utf8)
    }

    /// Hardening 5, item 12: a flood of 64 other addresses fills the sentence table first; the gyro
    /// heard after it is still said with its count (before: "HEHDT ×0").
    @Test func aSourceHeardAfterAFloodIsSaidWithItsCount() throws {
        var survey = FeedSurvey()
        for index in 0..<FeedSurvey.maximumAddresses {
            let junk = Self.sentence("ZZ\(String(UnicodeScalar(UInt8(65 + index % 26))))\(String(UnicodeScalar(UInt8(65 + index / 26))))Q,1")
            junk.withUnsafeBufferPointer { survey.take(line: $0) }
        }
        for _ in 0..<10 { Self.sentence("HEHDT,123.4,T").withUnsafeBufferPointer { survey.take(line: $0) } }
        #expect(survey.sentences["HEHDT"] == nil, "the table was full: \(survey.sentences.count)")
        let sources = ScanVerdicts.sources(base: try NMEAStreamEndpoint(parsing: "udp://:10110"), survey: survey, seconds: 1)
        #expect(sources.map(\.heard) == ["HEHDT ×10"], "\(sources)")
    }
}
