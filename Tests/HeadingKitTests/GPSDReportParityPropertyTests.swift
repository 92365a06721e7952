// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import PropertyBased
import Testing

@testable import HeadingKit

/// gpsd reports are read in one pass over their bytes when they are flat objects of strings and
/// numbers, and by `JSONDecoder` otherwise. Fuzzed for parity: whatever the line, valid or
/// broken, the result (report, or error and its words) is `JSONDecoder`'s.
struct GPSDReportParityPropertyTests {
    private static func outcome(_ decode: () throws(LineDecodingError) -> GPSDReport) -> String {
        do { return "report: \(try decode())" } catch { return "error: \(error.code) \(error.reason)" }
    }

    private static func expectParity(_ line: String) {
        let bytes = Array(line.utf8)
        let fast = outcome { () throws(LineDecodingError) in try GPSDReportDecoder.decode(bytes) }
        let reference = outcome { () throws(LineDecodingError) in try GPSDReportDecoder.decodeWithJSONDecoder(bytes) }
        #expect(fast == reference, "line: \(line)")
    }

    static let keys = ["class", "device", "time", "heading", "mheading", "mag_st", "pitch", "roll", "mode", "track", "magtrack",
        "magvar", "lat", "lon", "alt", "altHAE", "speed", "path", "activated", "message", "ept", "heading", "relH", "x"]
    static let values = [
        "\"ATT\"", "\"TPV\"", "\"DEVICE\"", "\"ERROR\"", "\"SKY\"", "\"/dev/pts/1\"", "\"2026-01-01T00:00:00.000Z\"", "\"2026-13-01T00:00:00Z\"",
        "\"C\"", "\"N\"", "\"a\\\"b\"", "\"é\"", "\"\"", "274.07", "-0", "0", "2", "2.0", "1e2", "-1.5E-3", "007", "1.", ".5", "-",
        "360.0000001", "9007199254740993", "123456789012345678901234", "1e400", "true", "false", "null", "[1,2]", "{\"a\":1}",
        "1577836800", "1577836800.5", "0.30000000000000004", "\"\\u0041\"",
    ]
    static let spaces = ["", "", "", " ", "\t", "\n", "  "]

    /// A report: a class first (or not), then up to seven keys with values, with some spacing.
    static let report = Gen.element(of: Array(0..<keys.count)).map { $0 ?? 0 }.array(of: 0...7)
    static let picks = Gen.element(of: Array(0..<values.count)).map { $0 ?? 0 }.array(of: 8...8)
    static let spacing = Gen.element(of: Array(0..<spaces.count)).map { $0 ?? 0 }.array(of: 8...8)
    static let classFirst = Gen.element(of: [0, 1, 2, 3, 4, 5]).map { $0 ?? 0 }

    private static func line(keys chosen: [Int], values picked: [Int], spaces spaced: [Int], classIndex: Int) -> String {
        var members: [String] = []
        if classIndex < 5 { members.append("\"class\":\(values[classIndex])") }
        for (offset, key) in chosen.enumerated() {
            let space = spaces[spaced[offset % spaced.count]]
            members.append("\(space)\"\(keys[key])\"\(space):\(space)\(values[picked[offset % picked.count]])")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test func generatedReportsDecodeAsJSONDecoderDecodesThem() async {
        await propertyCheck(count: 4000, input: Self.report, Self.picks, Self.spacing, Self.classFirst) { chosen, picked, spaced, classIndex in
            Self.expectParity(Self.line(keys: chosen, values: picked, spaces: spaced, classIndex: classIndex))
        }
    }

    static let position = Gen.int(in: 0...200)
    static let replacement = Gen.element(of: Array("{}[]\",:.-+0123456789eE \\tnA")).map { $0 ?? " " }

    /// Found by the property below in a fresh-clone run: JSONDecoder refuses `0E7`.
    @Test(arguments: [#"{"class":"TPV","alt":0E7}"#, #"{"class":"TPV","alt":0e7}"#, #"{"class":"TPV","alt":0E+7}"#, #"{"class":"TPV","alt":-0E7}"#])
    func numbersJSONDecoderJudgesOddlyAreJudgedTheSame(_ line: String) {
        Self.expectParity(line)
    }

    @Test func brokenReportsAreJudgedAsJSONDecoderJudgesThem() async {
        await propertyCheck(count: 4000, input: Self.report, Self.picks, Self.position, Self.replacement) { chosen, picked, position, character in
            var text = Array(Self.line(keys: chosen, values: picked, spaces: [0], classIndex: 1))
            let at = position % (text.count + 1)
            switch position % 3 {
            case 0 where at < text.count: text[at] = character
            case 1 where at < text.count: text.remove(at: at)
            default: text.insert(character, at: at)
            }
            Self.expectParity(String(text))
        }
    }

    @Test(arguments: [
        #"{"class":"ATT","device":"/dev/pts/1","heading":274.070}"#,
        #"{"class":"TPV","device":"/dev/pts/1","mode":2,"time":"2026-01-01T00:00:00.000Z","ept":0.005,"lat":55.5,"lon":12.5,"magvar":2.5,"track":47.8,"magtrack":45.3,"speed":3.087}"#,
        #"{"class":"DEVICE","path":"/dev/pts/1","activated":0}"#,
        #"{"class":"ATT","heading":274.07,"heading":1}"#,
        #"{"class":"ATT","heading":"274.07"}"#,
        #"{}"#, #"{"class":"ATT"} x"#, #"  {"class":"ATT"}  "#, #"{"class":"ATT",}"#, #"[{"class":"ATT"}]"#,
    ])
    func realAndEdgeReportsDecodeAsJSONDecoderDecodesThem(line: String) {
        Self.expectParity(line)
    }
}
