// headingd — HeadingOutputs tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import PropertyBased
import Testing

/// The Signal K encoder and notification board, checked by value and against the published
/// Signal K schemas (Tests/Fixtures/signalk-schemas, validated by Debian's python3-jsonschema).
struct SignalKDeltaEncoderTests {
    static let selfURN = SignalKDeltaEncoder.selfURN(for: UUID(uuidString: "6B0E776F-811A-4B35-980E-B93405371BC5")!)
    static let encoder = SignalKDeltaEncoder(selfURN: selfURN)
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000.123)

    static func heading(
        true trueHeading: Double? = nil, magnetic: Double? = nil, deviation: Double? = nil, variation: Double? = nil,
        pitch: Double? = nil, roll: Double? = nil, source: String = "gpsd://127.0.0.1:2947", at date: Date = epoch
    ) -> Heading {
        Heading(
            trueHeading: trueHeading, magneticHeading: magnetic, timestamp: date, source: source, kind: .gnssCompass,
            pitch: pitch, roll: roll, magneticVariation: variation, deviation: deviation
        )
    }

    /// The delta as Foundation reads it, and its one update.
    static func parse(_ delta: String) throws -> (object: [String: Any], update: [String: Any]) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(delta.utf8)) as? [String: Any])
        let updates = try #require(object["updates"] as? [[String: Any]])
        #expect(updates.count == 1)
        return (object, try #require(updates.first))
    }

    /// Each path's value in an update.
    static func values(_ update: [String: Any]) -> [String: Any] {
        var values: [String: Any] = [:]
        for value in update["values"] as? [[String: Any]] ?? [] {
            if let path = value["path"] as? String { values[path] = value["value"] ?? NSNull() }
        }
        return values
    }

    @Test func aHeadingIsItsRadiansWithOnlyTheKnownPaths() throws {
        let (object, update) = try Self.parse(Self.encoder.delta(for: Self.heading(true: 90, magnetic: 87.5, variation: 2.5))!)
        #expect(object["context"] as? String == "vessels.urn:mrn:signalk:uuid:6b0e776f-811a-4b35-980e-b93405371bc5")
        #expect(update["$source"] as? String == "headingd.gpsd-127.0.0.1-2947")
        #expect(update["timestamp"] as? String == "2027-01-15T08:00:00.123Z")
        let values = Self.values(update)
        #expect(Set(values.keys) == ["navigation.headingTrue", "navigation.headingMagnetic", "navigation.magneticVariation"])
        #expect(abs((values["navigation.headingTrue"] as? Double ?? 0) - .pi / 2) < 1e-12)
        #expect(abs((values["navigation.headingMagnetic"] as? Double ?? 0) - 87.5 * .pi / 180) < 1e-12)
        #expect(abs((values["navigation.magneticVariation"] as? Double ?? 0) - 2.5 * .pi / 180) < 1e-12)
        #expect(update["meta"] == nil)
    }

    @Test func attitudeAndRateOfTurnWhenKnownAndMetaForEachPathWhenAsked() throws {
        let heading = Self.heading(true: 270, deviation: -1, pitch: 2, roll: -3)
        let (_, update) = try Self.parse(Self.encoder.delta(for: heading, rateOfTurn: -0.05, includingMeta: true)!)
        let values = Self.values(update)
        let attitude = try #require(values["navigation.attitude"] as? [String: Double])
        #expect(abs(attitude["roll", default: 0] + 3 * .pi / 180) < 1e-12)
        #expect(abs(attitude["pitch", default: 0] - 2 * .pi / 180) < 1e-12)
        #expect(abs(attitude["yaw", default: 0] + .pi / 2) < 1e-12, "yaw is signed: 270° is −90°")
        #expect(values["navigation.rateOfTurn"] as? Double == -0.05)
        #expect(abs((values["navigation.magneticDeviation"] as? Double ?? 0) + .pi / 180) < 1e-12)
        let meta = try #require(update["meta"] as? [[String: Any]])
        #expect(meta.compactMap { $0["path"] as? String } == Self.encoder.paths(for: heading, rateOfTurn: -0.05).map(\.rawValue))
        #expect(meta.allSatisfy { (($0["value"] as? [String: Any])?["units"] as? String)?.hasPrefix("rad") == true })
    }

    /// Property: across the whole circle (0 and just under 360 included) the radians read back
    /// equal the degrees given, within 1e-9.
    @Test func radiansEqualDegreesAcrossTheCircle() async throws {
        let cases: [Double] = [0, 359.99, 359.999_999, 180, 0.000_001]
        for degrees in cases {
            let values = Self.values(try Self.parse(Self.encoder.delta(for: Self.heading(true: degrees))!).update)
            #expect(abs((values["navigation.headingTrue"] as? Double ?? -1) - degrees * .pi / 180) < 1e-9, "\(degrees)°")
        }
        await propertyCheck(input: Gen.double(in: 0..<360)) { degrees in
            let values = Self.values(try Self.parse(Self.encoder.delta(for: Self.heading(true: degrees))!).update)
            #expect(abs((values["navigation.headingTrue"] as? Double ?? -1) - degrees * .pi / 180) < 1e-9, "\(degrees)°")
        }
    }

    @Test func aVariationFromTheMagneticModelIsTheModelsUpdate() throws {
        let heading = Heading(
            trueHeading: 10, magneticHeading: 12, timestamp: Self.epoch, source: "simulation", magneticVariation: -2, variationOrigin: .model
        )
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.encoder.delta(for: heading, includingMeta: true)!.utf8)) as? [String: Any])
        let updates = try #require(object["updates"] as? [[String: Any]])
        #expect(updates.map { $0["$source"] as? String } == ["headingd.simulation", "headingd.wmm2025"])
        #expect(Set(Self.values(updates[0]).keys) == ["navigation.headingTrue", "navigation.headingMagnetic"])
        #expect(Set(Self.values(updates[1]).keys) == ["navigation.magneticVariation"])
    }

    @Test func staleValuesGoToNull() throws {
        let delta = Self.encoder.unavailable([.headingTrue, .headingMagnetic], source: "simulation", at: Self.epoch)
        let values = Self.values(try Self.parse(delta).update)
        #expect(values.count == 2)
        #expect(values.values.allSatisfy { $0 is NSNull })
    }

    @Test func timestampsAreUTCWithMillisecondsBeforeAndAfter1970() {
        let date = { (seconds: Double) in Self.encoder.delta(for: Self.heading(true: 1, at: Date(timeIntervalSince1970: seconds)))! }
        #expect(date(0).contains("\"timestamp\":\"1970-01-01T00:00:00.000Z\""))
        #expect(date(-0.5).contains("\"timestamp\":\"1969-12-31T23:59:59.500Z\""))
        #expect(date(951_782_400.999).contains("\"timestamp\":\"2000-02-29T00:00:00.999Z\""))
    }

    @Test func sourceNamesBecomeReferencesSignalKAllows() {
        #expect(SignalKDeltaEncoder.sourceReference(for: "simulation") == "headingd.simulation")
        #expect(SignalKDeltaEncoder.sourceReference(for: "replay:/var/log/boat 1.nmea") == "headingd.replay-var-log-boat-1.nmea")
        #expect(SignalKDeltaEncoder.sourceReference(for: "gpsd://[::1]:2947/dev/ttyUSB0") == "headingd.gpsd-1-2947-dev-ttyUSB0")
        // A scalar beyond ASCII (several bytes) is one run, as a combining mark after it is.
        #expect(SignalKDeltaEncoder.sourceReference(for: "compas\u{E7}-b\u{F6}\u{308}rd") == "headingd.compas--b-rd")
        #expect(SignalKDeltaEncoder.sourceReference(for: "") == "headingd.")
    }

    @Test func faultsRaiseNotificationsThatRecoveryClears() {
        var board = SignalKNotificationBoard()
        let stale = HeadingFault(code: .stale, source: "a", reason: "no heading for 2.0 s", timestamp: Self.epoch)
        let raised = board.update(with: .fault(stale))
        #expect(raised.map(\.path) == ["notifications.navigation.heading.stale"])
        #expect(raised.first?.state == .alarm)
        #expect(raised.first?.method == [.visual, .sound])
        #expect(raised.first?.message == "a: no heading for 2.0 s")
        _ = board.update(with: .fault(HeadingFault(code: .stale, source: "b", reason: "no heading", timestamp: Self.epoch)))
        #expect(board.update(with: .heading(Self.heading(true: 1, source: "a"))).isEmpty, "a heading does not clear an alarm")
        let recoveredA = HeadingNotice(code: .recovered, source: "a", reason: "headings again", timestamp: Self.epoch)
        #expect(board.update(with: .notice(recoveredA)).isEmpty, "b is still stale")
        let recoveredB = HeadingNotice(code: .recovered, source: "b", reason: "headings again", timestamp: Self.epoch)
        let cleared = board.update(with: .notice(recoveredB))
        #expect(cleared.map(\.state) == [.normal])
        #expect(cleared.first?.method == [])
        #expect(board.active.isEmpty)
    }

    @Test func aSkippedLineIsAnAlertTheNextHeadingClears() {
        var board = SignalKNotificationBoard()
        let bad = HeadingFault(code: .malformedInput, source: "r", reason: "bad checksum", location: .init(path: "f", line: 3), timestamp: Self.epoch)
        #expect(board.update(with: .fault(bad)).map(\.state) == [.alert])
        #expect(board.update(with: .heading(Self.heading(true: 1, source: "other"))).isEmpty)
        #expect(board.update(with: .heading(Self.heading(true: 1, source: "r"))).map(\.state) == [.normal])
    }

    /// Every kind of message the encoder writes, checked by the published schema (delta.json, with
    /// its definitions and the notification group), by a validator no one here wrote.
    @Test func everyMessageIsValidAgainstThePublishedDeltaSchema() throws {
        var lines = [
            Self.encoder.delta(for: Self.heading(true: 0), includingMeta: true)!,
            Self.encoder.delta(for: Self.heading(true: 359.99, magnetic: 1, deviation: 0.5, variation: -3, pitch: 1, roll: 2), rateOfTurn: 0.01, includingMeta: true)!,
            Self.encoder.delta(for: Self.heading(magnetic: 12, source: "replay:/tmp/\"quoted\"\tname"))!,
            Self.encoder.unavailable(SignalKDeltaEncoder.Path.allCases, source: "simulation", at: Self.epoch),
            Self.encoder.delta(
                for: Heading(trueHeading: 10, magneticHeading: 12, timestamp: Self.epoch, source: "simulation", magneticVariation: -2, variationOrigin: .model),
                includingMeta: true
            )!,
        ]
        var board = SignalKNotificationBoard()
        for code in [HeadingFault.Code.stale, .deviceLost, .sourceUnavailable, .malformedInput, .disagreement, .calibrationNeeded] {
            let fault = HeadingFault(code: code, source: "gpsd://h:1", reason: "why \"quoted\"\n", timestamp: Self.epoch)
            lines += board.update(with: .fault(fault)).map(Self.encoder.delta(for:))
        }
        lines += board.update(with: .notice(HeadingNotice(code: .recovered, source: "gpsd://h:1", reason: "again", timestamp: Self.epoch)))
            .map(Self.encoder.delta(for:))
        #expect(lines.count == 17, "5 deltas, 6 raised, 6 cleared")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("signalk-\(UUID().uuidString).jsonl")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, output) = try Self.validate(schema: "delta", file: file.path)
        #expect(status == 0, "\(output)")
        #expect(output.contains("ok 17"), "\(output)")
    }

    /// Runs Tests/Fixtures/validate-signalk.py with Debian's python3 (and its python3-jsonschema).
    static func validate(schema: String, file: String) throws -> (Int32, String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/validate-signalk.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, schema, file]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
