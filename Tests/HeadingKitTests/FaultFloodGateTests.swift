// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import HeadingKit

/// A flood of bad lines is its first fault, then at most a summary an interval, then one calm
/// line: and the occurrences of what passes add up to every bad line.
struct FaultFloodGateTests {
    static let start = ContinuousClock.now

    static func fault(_ code: HeadingFault.Code = .malformedInput, _ reason: String = "field 1 of HDT is 'x'; expected a number", line: Int? = nil) -> HeadingFault {
        HeadingFault(code: code, source: "tcp://gyro", reason: reason, location: line.map { .init(path: "log.nmea", line: $0) })
    }

    @Test func aFloodIsItsFirstFaultThenASummaryAnIntervalWithEveryLineCounted() {
        var gate = FaultFloodGate(interval: .seconds(10))
        var passed: [HeadingFault] = []
        // 4,000 bad lines a second for 25 s, checksums and bad fields alternating.
        for tick in 0..<(25 * 4000) {
            let now = Self.start + .microseconds(250 * tick)
            let reason = tick % 2 == 0 ? "checksum mismatch: sentence says 00, content gives 5A" : "field 1 of HDT is 'x'; expected a number"
            if let fault = gate.admit(Self.fault(.malformedInput, reason), at: now) { passed.append(fault) }
        }
        #expect(passed.count == 3, "the first, then one summary at 10 s and one at 20 s: \(passed.map(\.reason))")
        #expect(passed[0].occurrences == 1 && passed[0].reason.hasPrefix("checksum"))
        #expect(passed[1].reason.hasPrefix("40000 more bad lines in 10 s (checksum 20000, malformed 20000)"), "\(passed[1].reason)")
        #expect(passed[1].reason.hasSuffix("the last: checksum mismatch: sentence says 00, content gives 5A"), "\(passed[1].reason)")
        #expect(passed[1].occurrences == 40000 && passed[2].occurrences == 40000)
        // The end of the flood: the rest in one summary once its interval is up, then calm once clean for 10 s.
        let end = Self.start + .seconds(25)
        #expect(gate.tick(at: end).summaries.isEmpty, "the last summary was at 20 s")
        let due = gate.tick(at: Self.start + .seconds(30))
        #expect(due.summaries.count == 1 && due.calmed.isEmpty)
        passed += due.summaries
        #expect(passed.reduce(0) { (sum: Int, summary) in sum + summary.occurrences } == 100_000, "every bad line is counted: \(passed.map(\.occurrences))")
        let calm = gate.tick(at: end + .seconds(10))
        #expect(calm.summaries.isEmpty && calm.calmed.count == 1)
        #expect(calm.calmed.first?.description == "tcp://gyro: malformedInput: input clean again (no bad line for 10 s) after 100000 bad lines in 25 s")
        // A new bad line after that is a new flood: reported whole at once.
        #expect(gate.admit(Self.fault(), at: end + .seconds(11))?.occurrences == 1)
    }

    @Test func codesAreGatedApartAndOtherFaultsPassUntouched() {
        var gate = FaultFloodGate()
        let now = Self.start
        #expect(gate.admit(Self.fault(.malformedInput), at: now) != nil)
        #expect(gate.admit(Self.fault(.malformedInput), at: now) == nil)
        #expect(gate.admit(Self.fault(.outOfRange, "heading 400 is out of range"), at: now) != nil)
        for _ in 0..<5 {
            #expect(gate.admit(Self.fault(.sourceUnavailable, "connection refused"), at: now)?.code == .sourceUnavailable)
            #expect(gate.admit(Self.fault(.stale, "no heading"), at: now)?.code == .stale)
        }
    }

    @Test func aLoneBadLineNowAndThenIsAlwaysReportedWhole() {
        var gate = FaultFloodGate(interval: .seconds(10))
        for minute in 0..<5 {
            let now = Self.start + .seconds(60 * minute)
            _ = gate.tick(at: now)
            #expect(gate.admit(Self.fault(), at: now)?.occurrences == 1)
            #expect(gate.tick(at: now + .seconds(10)).calmed.isEmpty, "nothing was held back: no calm line")
        }
    }

    @Test func aReplayNamesItsFirstHundredThenSummarisesTheRestAtTheEnd() {
        var gate = FaultFloodGate(leading: 100)
        var named: [Int] = []
        for line in 1...1000 {
            if let fault = gate.admit(Self.fault(line: line), at: Self.start) { named.append(fault.location?.line ?? 0) }
        }
        #expect(named == Array(1...100))
        let rest = gate.flush(at: Self.start + .milliseconds(50))
        #expect(rest.count == 1 && rest[0].occurrences == 900 && rest[0].location?.line == 1000, "\(rest)")
        #expect(gate.flush(at: Self.start + .seconds(1)).isEmpty, "flushed once")
    }

    @Test func aFaultEncodedBeforeOccurrencesDecodesAsOne() throws {
        let old = #"{"code":"malformedInput","source":"s","reason":"r","timestamp":0}"#
        let fault = try JSONDecoder().decode(HeadingFault.self, from: Data(old.utf8))
        #expect(fault.occurrences == 1)
        let summary = HeadingFault(code: .malformedInput, source: "s", reason: "r", occurrences: 12)
        #expect(try JSONDecoder().decode(HeadingFault.self, from: JSONEncoder().encode(summary)).occurrences == 12)
    }

    /// Whatever the codes, gaps and ticks: nothing is lost (the occurrences passed, flushed at the
    /// end, add up to every fault), no two summaries of a code come closer than the interval, and
    /// every fault of another code passes.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func nothingIsLostAndSummariesKeepTheirInterval(seed: UInt64) {
        var random = SeededRandomNumberGenerator(seed: seed)
        let leading = Int.random(in: 1...5, using: &random)
        var gate = FaultFloodGate(interval: .seconds(10), leading: leading)
        let codes: [HeadingFault.Code] = [.malformedInput, .outOfRange, .unsupportedInput, .stale]
        var now = Self.start
        var sent: [HeadingFault.Code: Int] = [:]
        var passed: [HeadingFault.Code: Int] = [:]
        var lastSummary: [HeadingFault.Code: ContinuousClock.Instant] = [:]
        func record(_ fault: HeadingFault) {
            passed[fault.code, default: 0] += fault.occurrences
            if fault.occurrences > 1 || fault.reason.contains("summarised") {
                if let last = lastSummary[fault.code] { #expect(now - last >= .seconds(10), "two summaries of \(fault.code) within the interval") }
                lastSummary[fault.code] = now
            }
        }
        for _ in 0..<20_000 {
            now = now + .milliseconds(Int.random(in: 0...(Bool.random(using: &random) ? 5 : 3000), using: &random))
            if Int.random(in: 0..<50, using: &random) == 0 {
                for fault in gate.tick(at: now).summaries { record(fault) }
                continue
            }
            let code = codes[Int.random(in: 0..<codes.count, using: &random)]
            sent[code, default: 0] += 1
            if let fault = gate.admit(Self.fault(code, "reason \(sent[code]!)"), at: now) {
                if code == .stale { #expect(fault.occurrences == 1) }
                record(fault)
            }
        }
        for fault in gate.flush(at: now + .seconds(1)) { passed[fault.code, default: 0] += fault.occurrences }
        #expect(passed == sent, "leading \(leading)")
    }
}
