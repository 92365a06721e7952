// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// The history: a generated recording replayed at ×100 into it, then read through the Signal K
/// History API by Python's HTTP client, against what the replay printed.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdHistoryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The circular mean of angles in radians, in [0, 2π).
    static func circularMean(_ values: [Double]) -> Double {
        let mean = atan2(values.reduce(0) { $0 + sin($1) }, values.reduce(0) { $0 + cos($1) })
        return mean < 0 ? mean + 2 * .pi : mean
    }

    @Test func aReplayAtAHundredTimesReadsBackThroughTheHistoryAPI() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-history-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = directory.appendingPathComponent("voyage.nmea").path
        let (generated, _, _) = try await Command.run(Self.root.appendingPathComponent("scripts/generate-nmea").path, ["3000", recording])
        #expect(generated == 0)
        let file = directory.appendingPathComponent("history.sqlite").path
        let replay = try await DaemonProcess.run(["--source", "replay:\(recording)", "--speed", "100", "--history", "--history-file", file, "--format", "json"])
        #expect(replay.terminationStatus == 0, "\(replay.errors)")
        // What the replay printed: the first heading of each second is the sample kept.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var samples: [(time: Double, true: Double?, magnetic: Double?)] = []
        for line in replay.outputLines {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let stamp = object["timestamp"] as? String, let time = formatter.date(from: stamp)?.timeIntervalSince1970
            else { continue }
            if let last = samples.last, last.time.rounded(.down) == time.rounded(.down) { continue }
            samples.append((time, (object["trueHeading"] as? Double).map { $0 * .pi / 180 }, (object["magneticHeading"] as? Double).map { $0 * .pi / 180 }))
        }
        #expect(samples.count > 60, "\(samples.count) seconds replayed")
        let from = try #require(samples.first?.time), to = try #require(samples.last?.time)
        // Served by a headingd with nothing to add to it (a UDP source no one sends to).
        let port = GPSFake.freePort(), udp = GPSFake.freePort()
        let server = DaemonProcess(arguments: [
            "--source", "udp://127.0.0.1:\(udp)", "--signalk", "--signalk-listen", "127.0.0.1:\(port)", "--history", "--history-file", file,
        ])
        try server.start()
        #expect(await server.wait(timeout: .seconds(20), untilErrorsContain: "Signal K on 127.0.0.1:\(port)"), "\(server.errors)")
        let base = "http://127.0.0.1:\(port)/signalk/v2/api/history"
        let range = "from=\(formatter.string(from: Date(timeIntervalSince1970: from)))&to=\(formatter.string(from: Date(timeIntervalSince1970: to)))"
        // Values: 30 s buckets, the circular mean of true, the max of magnetic.
        let (status, type, body) = try await HeadingdMetricsTests.get("\(base)/values?paths=navigation.headingTrue,navigation.headingMagnetic:max&\(range)&resolution=30s")
        #expect(status == 200 && type == "application/json", "\(body)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let rows = try #require(answer["data"] as? [[Any]])
        var expected: [[Double]] = []
        var bucket: Int?
        var trues: [Double] = [], magnetics: [Double] = []
        func close() {
            guard bucket != nil else { return }
            expected.append([Self.circularMean(trues), magnetics.max() ?? .nan])
        }
        for sample in samples {
            let index = Int(((sample.time - from) / 30).rounded(.down))
            if index != bucket {
                close()
                bucket = index
                trues = []
                magnetics = []
            }
            if let value = sample.true { trues.append(value) }
            if let value = sample.magnetic { magnetics.append(value) }
        }
        close()
        #expect(rows.count == expected.count, "\(rows.count) rows for \(expected.count) buckets: \(body)")
        for (row, want) in zip(rows, expected) {
            let got = row.dropFirst().compactMap { $0 as? Double }
            #expect(got.count == 2 && abs(got[0] - want[0]) < 1e-9 && abs(got[1] - want[1]) < 1e-9, "\(row) against \(want)")
        }
        #expect((answer["values"] as? [[String: String]])?.map { $0["method"] ?? "" } == ["average", "max"])
        // At one second, a row per sample.
        let (_, _, fine) = try await HeadingdMetricsTests.get("\(base)/values?paths=navigation.headingTrue:first&\(range)&resolution=1000")
        let fineRows = try #require((try JSONSerialization.jsonObject(with: Data(fine.utf8)) as? [String: Any])?["data"] as? [[Any]])
        #expect(fineRows.count == samples.count, "\(fineRows.count) rows at 1 s for \(samples.count) samples")
        // Paths and contexts: what has data in the range; nothing a year later.
        let (_, _, paths) = try await HeadingdMetricsTests.get("\(base)/paths?\(range)")
        #expect(paths == #"["navigation.headingTrue","navigation.headingMagnetic"]"#, "\(paths)")
        let (_, _, contexts) = try await HeadingdMetricsTests.get("\(base)/contexts?\(range)")
        #expect(contexts.hasPrefix(#"["vessels.urn:mrn:signalk:uuid:"#), "\(contexts)")
        let later = formatter.string(from: Date(timeIntervalSince1970: to + 366 * 86_400 - 1))
        let (_, _, none) = try await HeadingdMetricsTests.get("\(base)/paths?from=\(formatter.string(from: Date(timeIntervalSince1970: to + 1)))&to=\(later)")
        #expect(none == "[]")
        // Bad requests: 400, with the reason.
        for (query, reason) in [
            ("paths=navigation.speedOverGround&duration=PT1H", "unknown path expression"),
            ("paths=navigation.headingTrue:median&duration=PT1H", "unknown method"),
            ("paths=navigation.headingTrue&from=yesterday", "from must be an ISO 8601 time"),
            ("paths=navigation.headingTrue&duration=P2Y", "duration must be"),
            ("paths=navigation.headingTrue&\(range)&resolution=0.1", "too fine"),
            ("paths=navigation.headingTrue", "a range is required"),
        ] {
            let (code, _, text) = try await HeadingdMetricsTests.get("\(base)/values?\(query)")
            #expect(code == 400 && text.contains(reason), "\(query): \(code) \(text)")
        }
        server.send(SIGTERM)
        #expect(await server.waitForExit(timeout: .seconds(10)))
        #expect(server.terminationStatus == 0)
    }
}
