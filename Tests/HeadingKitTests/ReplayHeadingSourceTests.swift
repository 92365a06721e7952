// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Clocks
import Foundation
import HeadingKit
import Synchronization
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

struct ReplayHeadingSourceTests {
    // MARK: The shared gpsd logs

    @Test(arguments: Fixtures.allGPSDLogs)
    func everySharedLogReplaysToTheEnd(log: String) async {
        let (events, summary) = await replay(Fixtures.gpsdLog(log))
        if log.contains("sirf") || log.contains("bu303") {
            // SiRF's binary protocol, not lines: refused with the reason, not read to the end as text.
            let refused: Bool = if case .unsupported(let reason) = summary.outcome { !reason.isEmpty } else { false }
            #expect(refused, "\(log): \(summary.outcome)")
        } else {
            #expect(summary.outcome == .completed, "\(log): \(summary.outcome)")
        }
        #expect(summary.headings == events.filter { $0.heading != nil }.count)
        #expect(summary.faults == events.filter { $0.fault != nil }.count)
        for heading in events.compactMap(\.heading) {
            #expect(heading.preferredHeading.map { $0 >= 0 && $0 < 360 } == true)
        }
    }

    @Test func hemiGivesExactlyItsFourHDTHeadingsWithTheirTimes() async throws {
        let (events, summary) = await replay(Fixtures.gpsdLog("hemi.log"))
        let headings = events.compactMap(\.heading)
        #expect(headings.map(\.trueHeading) == [274.07, 274.04, 274.12, 274.11])
        #expect(headings.allSatisfy { $0.kind == .gnssCompass && $0.magneticHeading == nil })
        // Stamped with the recording's time (ZDA and RMC), not the replay's.
        let first = try #require(headings.first)
        #expect(abs(first.timestamp.timeIntervalSince1970 - 1_536_349_258) < 1)
        #expect(summary.faults == 0)
        #expect(summary.lines == 755)
    }

    @Test func aRecordingWithCarriageReturnsAloneGivesEveryHeading() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-cr-\(UUID().uuidString).nmea").path
        let sentences = (0..<100).map { "$GPHDT,\(Double($0) + 0.5),T" }
        try Data(sentences.joined(separator: "\r").utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (events, summary) = await replay(path)
        #expect(events.compactMap(\.heading).map(\.trueHeading) == (0..<100).map { (index: Int) in Double(index) + 0.5 })
        #expect(summary.lines == 100)
        #expect(summary.skippedLines == 0)
    }

    @Test func rst39GivesItsPASHRRunAndCourseOverGround() async {
        let (events, _) = await replay(Fixtures.gpsdLog("rst39.log"))
        let headings = events.compactMap(\.heading)
        let attitude = headings.filter { $0.kind == .inertial }
        #expect(attitude.count == 100)
        #expect(attitude.prefix(4).map(\.trueHeading) == [10.51, 10.99, 11.49, 11.99])
        #expect(attitude.first?.roll == 0.39)
        #expect(attitude.first?.pitch == -0.79)
        #expect(attitude.first?.headingAccuracy == 0.555)
        let course = headings.filter { $0.kind == .courseOverGround }
        #expect(course.map(\.trueHeading) == [21.404, 41.865, 60.172, 76.928])
    }

    @Test func bundgGivesMagneticHDGWithVariationApplied() async {
        let (events, _) = await replay(Fixtures.gpsdLog("bundg_zeus_9.log"))
        let compass = events.compactMap(\.heading).filter { $0.kind == .compass }
        #expect(compass.count == 1457)
        #expect(compass.first?.magneticHeading == 229.8)
        #expect(compass.first?.trueHeading == 231.1)
        for heading in compass {
            let variation = heading.magneticVariation ?? .nan
            #expect(Degrees.distance(heading.magneticHeading! + variation, heading.trueHeading!) < 1e-6)
        }
    }

    @Test(arguments: ["tnt-revolution.log", "tnt-revolution.log.chk"])
    func tntRawUnitsAreRejectedOneFaultPerReport(log: String) async {
        let (events, summary) = await replay(Fixtures.gpsdLog(log))
        #expect(summary.headings == 0)
        let faults = events.compactMap(\.fault)
        #expect(faults.count == 50, "one per PTNTHTM; gpsd's ATT copy of each is a duplicate, not a second fault")
        #expect(faults.allSatisfy { $0.code == .outOfRange })
        #expect(faults.first?.location?.line == (log.hasSuffix(".chk") ? 1 : 12))
        #expect(faults.first?.reason == "field 1 (true heading) 14223 is outside 0–360°")
        #expect(summary.duplicates == (log.hasSuffix(".chk") ? 50 : 0))
    }

    @Test(arguments: ["bu303-moving.log", "sirfstarv.log"])
    func binaryVendorLogsAreReportedOnceAsUnsupported(log: String) async {
        let (events, summary) = await replay(Fixtures.gpsdLog(log))
        #expect(events.count == 1)
        #expect(events.first?.fault?.code == .unsupportedInput)
        #expect(events.first?.fault?.reason.contains("binary SiRF protocol") == true)
        #expect(events.first?.fault?.reason.contains(log) == true)
        guard case .unsupported = summary.outcome else {
            Issue.record("outcome \(summary.outcome)")
            return
        }
    }

    @Test(arguments: [[UInt8]([0xB5, 0x62]), [0xA0, 0xA2]])
    func aStraySyncPairInATextFileIsOneBadLineNotABinaryFile(pair: [UInt8]) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-stray-\(UUID().uuidString).nmea").path
        var bytes = Array((nmea("GPHDT,10.0,T") + "\n").utf8)
        bytes += Array("$GPHDT,".utf8) + pair + Array(",T\n".utf8)
        for value in 11...30 { bytes += Array((nmea("GPHDT,\(value).0,T") + "\n").utf8) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (events, summary) = await replay(path)
        let expected: [Double] = [10] + (11...30).map { (index: Int) in Double(index) }
        #expect(events.compactMap(\.heading?.trueHeading) == expected)
        #expect(events.compactMap(\.fault).map(\.code) == [.malformedInput])
        #expect(events.compactMap(\.fault).first?.location?.line == 2)
        #expect(summary.outcome == .completed)
    }

    @Test func courseBelowTheMinimumSpeedAndRepeatedFixesGiveNoExtraHeadings() async {
        // telit-he910 never moves faster than 0.05 knots: its course is noise.
        #expect(await replay(Fixtures.gpsdLog("telit-he910.log")).summary.headings == 0)
        // haicom-305N sends RMC and VTG for each fix: one heading per fix.
        let (events, summary) = await replay(Fixtures.gpsdLog("haicom-305N.log"))
        let courses = events.compactMap(\.heading)
        #expect(summary.duplicates > 0)
        for (previous, next) in zip(courses, courses.dropFirst()) {
            #expect(previous.timestamp != next.timestamp, "two headings for one fix at \(next.timestamp)")
        }
    }

    @Test func aGpspipeRecordingReplaysTheSameHeadingsAsTheNMEAItCameFrom() async {
        let fromNMEA = await replay(Fixtures.gpsdLog("hemi.log")).events.compactMap(\.heading?.trueHeading)
        let (events, summary) = await replay(Fixtures.path("hemi.gpspipe.jsonl"))
        #expect(events.compactMap(\.heading?.trueHeading) == fromNMEA)
        #expect(fromNMEA.count == 4)
        // The end of gpsfake's log: gpsd reports the device gone.
        #expect(events.last?.fault?.code == .deviceLost)
        #expect(events.last?.fault?.reason == "gpsd reports device /dev/pts/1 deactivated")
        #expect(summary.skippedLines == 0)
    }

    // MARK: Bad input

    @Test func eachKindOfMalformedLineIsOneFaultAndTheLinesAroundItAreDelivered() async throws {
        let lines = [
            "{\"class\":\"ATT\",\"heading\":\"north\"}",  // 1 JSON with a wrong type
            "{\"class\":\"ATT\",\"heading\":12",  // 2 truncated JSON
            nmea("GPHDT,10.0,T"),  // 3
            "$GPHDT,11.0,T*00",  // 4 bad checksum
            nmea("GPHDT,12.0,T"),  // 5
            "$GPHDT,13.0",  // 6 truncated: no checksum, no reference letter: refused, never 13°
            "$GPHDT,14.",  // 7 truncated mid-number: refused
            "$GPHD",  // 8 truncated address: an unknown sentence, ignored
            "\u{1}\u{2}\u{3}garbage\u{7F}",  // 9 binary garbage
            nmea("GPHDT,15.0,T"),  // 10
            nmea("GPHDT,400.0,T"),  // 11 out of range
            nmea("GPHDT,1" + String(repeating: "0", count: 40) + ",T"),  // 12 absurdly long number
            nmea("GPHDT,abc,T"),  // 13 not a number
            "$GPHDT,35\u{0}abc9.5,T",  // 14 NUL inside a number
            nmea("GPHDT,16.0,T"),  // 15
            "hello",  // 16 neither NMEA nor JSON
            nmea("GPHDT,17.0,T"),  // 17
        ]
        let file = try TemporaryFile(lines: lines)
        let (events, summary) = await replay(file.path)
        #expect(events.compactMap(\.heading?.trueHeading) == [10, 12, 15, 16, 17])
        let faults = events.compactMap(\.fault)
        #expect(faults.map { $0.location?.line } == [1, 2, 4, 6, 7, 9, 11, 12, 13, 14, 16])
        #expect(faults.allSatisfy { $0.location?.path == file.path && $0.source == "replay:\(file.path)" })
        #expect(faults.map(\.code) == [
            .malformedInput, .malformedInput, .malformedInput, .malformedInput, .malformedInput, .malformedInput, .outOfRange,
            .malformedInput, .malformedInput, .malformedInput, .malformedInput,
        ])
        #expect(faults[0].reason == "not a gpsd JSON report: 'heading' has the wrong type")
        #expect(faults[1].reason.hasPrefix("not a gpsd JSON report: "))
        #expect(faults[2].reason == "checksum mismatch: sentence says 00, content gives 05")
        #expect(faults[3].reason == "HDT sentence has 1 field; a complete one has 2 (heading, T): cut short?")
        #expect(faults[4].reason == "HDT sentence has 1 field; a complete one has 2 (heading, T): cut short?")
        #expect(faults[5].reason == "binary data, not an NMEA 0183 sentence or a gpsd JSON report")
        #expect(faults[6].reason == "field 1 (true heading) 400.0 is outside 0–360°")
        #expect(faults[7].reason.hasPrefix("field 1 (true heading) is 41 characters long"))
        #expect(faults[8].reason == "field 1 (true heading) is not a number: 'abc'")
        #expect(faults[9].reason == "binary data in sentence (byte 0x0)")
        #expect(faults[10].reason == "not an NMEA 0183 sentence or a gpsd JSON report")
        #expect(summary.skippedLines == 11)
        #expect(summary.faults == 11)
        #expect(summary.outcome == .completed)
    }

    @Test func anEnormousLineIsReportedWithoutBeingKept() async throws {
        var contents = Data((nmea("GPHDT,1.0,T") + "\n").utf8)
        contents.append(Data(repeating: UInt8(ascii: "A"), count: 8 * 1024 * 1024))
        contents.append(Data(("\n" + nmea("GPHDT,2.0,T") + "\n").utf8))
        let file = try TemporaryFile(contents: contents)
        let (events, summary) = await replay(file.path)
        #expect(events.compactMap(\.heading?.trueHeading) == [1, 2])
        #expect(events.compactMap(\.fault).map(\.reason) == ["line of 8388608 bytes is longer than 4096; skipped"])
        #expect(events.compactMap(\.fault).first?.location?.line == 2)
        #expect(summary.skippedLines == 1)
    }

    @Test func aMissingFileIsAnAvailabilityFaultNamingThePath() async {
        let path = "/nonexistent/headingd/boat.nmea"
        let (events, summary) = await replay(path)
        #expect(events.count == 1)
        #expect(events.first?.fault?.code == .sourceUnavailable)
        #expect(events.first?.fault?.reason == "cannot read \(path): No such file or directory")
        #expect(summary.outcome == .unavailable("cannot read \(path): No such file or directory"))
    }

    @Test func aDirectoryIsNotAFileToReplay() async throws {
        let file = try TemporaryFile(lines: [])
        let (events, _) = await replay(file.directory.path)
        #expect(events.first?.fault?.reason == "cannot read \(file.directory.path): Is a directory")
    }

    @Test func aMissingFileIsStillAuthorizedItIsNotARefusal() {
        let source = ReplayHeadingSource(configuration: .init(path: "/nonexistent/boat.nmea"))
        let recorder = EventRecorder()
        source.delegate = recorder
        source.requestAuthorization()
        #expect(recorder.events == [.authorizationChanged(.authorized)])
    }

    // MARK: Looping

    @Test func loopingStartsAgainAtTheEnd() async throws {
        let file = try TemporaryFile(lines: [nmea("GPHDT,1.0,T"), nmea("GPHDT,2.0,T"), nmea("GPHDT,3.0,T")])
        let (events, summary) = await replay(file.path, loops: true, limit: 10)
        #expect(events.compactMap(\.heading?.trueHeading) == [1, 2, 3, 1, 2, 3, 1, 2, 3, 1])
        #expect(summary.outcome == .stopped)
        #expect(summary.passes >= 4)
    }

    @Test func aFlatOutReplayStoppedByItsProxyCountsOnlyTheHeadingsDelivered() async throws {
        // 20,000 headings in batches of 256; the proxy is disabled (which stops the source) from a
        // subscriber once the first batch arrives. The replay must not go on counting headings the
        // disabled proxy no longer takes: what it says it delivered is what was published.
        let file = try TemporaryFile(lines: (0..<20_000).map { nmea("GPHDT,\(Double($0 % 360)),T") })
        let source = ReplayHeadingSource(configuration: .init(path: file.path, speed: .flatOut))
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let published = Mutex(0)
        let subscription = proxy.headingPublisher.sink { @Sendable _ in
            if published.withLock({ count in count += 1; return count }) == ReplayHeadingSource.batchSize { proxy.disable() }
        }
        defer { subscription.cancel() }
        proxy.enable()
        let summary = await source.waitUntilFinished()
        #expect(summary.outcome == .stopped)
        #expect(summary.headings == published.withLock { $0 }, "\(summary.headings) counted, \(published.withLock { $0 }) published")
        #expect(summary.headings < 20_000)
    }

    @Test func loopingAFileWithoutHeadingsEndsInsteadOfSpinning() async throws {
        let file = try TemporaryFile(lines: [nmea("GPGGA,,,,,,0,,,,M,,M,,")])
        let (_, summary) = await replay(file.path, loops: true)
        #expect(summary.outcome == .completed)
        #expect(summary.passes == 1)
    }
}
