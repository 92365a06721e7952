// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import HeadingKit
import Testing

struct WorldMagneticModelTests {
    /// WMM2025's published test values (the technical report's table, NCEI's `WMM2025_TestValues.txt`):
    /// decimal year, height above the ellipsoid (km), latitude, longitude, declination to 0.01°.
    static let officialTestValues: [(year: Double, kilometres: Double, latitude: Double, longitude: Double, declination: Double)] = [
        (2025.0, 0, 80, 0, 1.28), (2025.0, 0, 0, 120, -0.16), (2025.0, 0, -80, 240, 68.78),
        (2025.0, 100, 80, 0, 0.85), (2025.0, 100, 0, 120, -0.15), (2025.0, 100, -80, 240, 68.21),
        (2027.5, 0, 80, 0, 2.59), (2027.5, 0, 0, 120, -0.24), (2027.5, 0, -80, 240, 68.49),
        (2027.5, 100, 80, 0, 2.16), (2027.5, 100, 0, 120, -0.23), (2027.5, 100, -80, 240, 67.93),
        (2025.0, 28, 89, -121, -99.77), (2025.0, 48, 80, -96, -29.91), (2025.0, 18, 0, 21, 1.29),
        (2025.5, 6, -36, -137, 20.28),
    ]

    @Test func reproducesTheOfficialTestValues() {
        let model = WorldMagneticModel.wmm2025
        for value in Self.officialTestValues {
            let declination = model.declination(
                latitude: value.latitude, longitude: value.longitude, altitude: value.kilometres * 1000, decimalYear: value.year
            )
            // The published values are rounded to 0.01°.
            #expect(abs(declination - value.declination) <= 0.005 + 1e-9, "\(value): \(declination)")
        }
    }

    @Test func agreesWithPygeomagAtRandomPoints() throws {
        let text = try String(contentsOfFile: Fixtures.path("wmm2025-oracle.csv"), encoding: .utf8)
        let model = WorldMagneticModel.wmm2025
        var errors: [Double] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: ",").compactMap { Double($0) }
            try #require(fields.count == 8, "bad oracle line: \(line)")
            let declination = model.declination(latitude: fields[0], longitude: fields[1], altitude: fields[2], decimalYear: fields[3])
            errors.append(abs(Degrees.signedDifference(from: fields[4], to: declination)))
        }
        #expect(errors.count == 500)
        let maximum = errors.max() ?? .infinity
        let mean = errors.reduce(0, +) / Double(errors.count)
        print("WMM2025 against pygeomag 1.1.0 at \(errors.count) points: max error \(maximum)°, mean \(mean)°")
        #expect(maximum <= 0.01)
    }

    @Test func fieldIntensitiesAndInclinationAgreeWithPygeomag() throws {
        let text = try String(contentsOfFile: Fixtures.path("wmm2025-oracle.csv"), encoding: .utf8)
        let model = WorldMagneticModel.wmm2025
        var worstIntensity = 0.0, worstInclination = 0.0, count = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: ",").compactMap { Double($0) }
            try #require(fields.count == 8, "bad oracle line: \(line)")
            let field = model.field(latitude: fields[0], longitude: fields[1], altitude: fields[2], decimalYear: fields[3])
            worstIntensity = max(worstIntensity, abs(field.totalIntensity - fields[5]), abs(field.horizontalIntensity - fields[6]))
            worstInclination = max(worstInclination, abs(field.inclination - fields[7]))
            #expect(abs(Degrees.signedDifference(from: fields[4], to: field.declination)) <= 0.01)
            count += 1
        }
        #expect(count == 500)
        #expect(worstIntensity <= 1, "worst intensity error \(worstIntensity) nT")
        #expect(worstInclination <= 0.01, "worst inclination error \(worstInclination)°")
    }

    @Test func zonesFollowNOAAsBounds() {
        #expect(WorldMagneticModel.Field(north: 1500, east: 1000, down: 50_000).zone == .blackout)  // H ≈ 1,803 nT
        #expect(WorldMagneticModel.Field(north: 5000, east: 0, down: 55_000).zone == .caution)
        #expect(WorldMagneticModel.Field(north: 19_000, east: -500, down: 45_000).zone == .normal)
        // Near the north magnetic pole (about 85.8° N, 139° E in 2026) the model itself is in the blackout zone.
        #expect(WorldMagneticModel.wmm2025.field(latitude: 85.8, longitude: 139, decimalYear: 2026.5).zone == .blackout)
        #expect(WorldMagneticModel.wmm2025.field(latitude: 50.8, longitude: -1.3, decimalYear: 2026.5).zone == .normal)
    }

    @Test func embeddedCoefficientsAreTheCOFFileUnchanged() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/HeadingKit/Processing/WMM_2025.COF")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(WorldMagneticModel.wmm2025CoefficientFile + "\n" == text, "run scripts/embed-wmm")
        let model = WorldMagneticModel.wmm2025
        #expect(model.name == "WMM-2025")
        #expect(model.epoch == 2025.0 && model.validUntil == 2030.0 && model.degree == 12)
    }

    @Test func knowsItsYearsOfValidity() {
        let model = WorldMagneticModel.wmm2025
        #expect(model.isValid(at: Date(timeIntervalSince1970: 1_767_225_600)))  // 2026-01-01
        #expect(!model.isValid(at: Date(timeIntervalSince1970: 1_893_456_000 + 86_400)))  // 2030-01-02
        #expect(!model.isValid(at: Date(timeIntervalSince1970: 1_704_067_200)))  // 2024-01-01
        #expect(abs(WorldMagneticModel.decimalYear(of: Date(timeIntervalSince1970: 1_751_457_600)) - 2025.5) < 1e-9)  // 2025-07-02T12:00Z
    }

    @Test func badCoefficientFilesNameTheLine() {
        #expect(throws: WorldMagneticModel.FormatError.self) { try WorldMagneticModel(coefficientFile: "") }
        do {
            _ = try WorldMagneticModel(coefficientFile: "2025.0 WMM-2025 11/13/2024\n1 0 -29351.8 0.0 12.0\n999999\n")
            Issue.record("a short coefficient line was accepted")
        } catch {
            #expect(error.line == 2)
        }
        do {
            _ = try WorldMagneticModel(coefficientFile: "2025.0 WMM-2025 11/13/2024\n1 0 -29351.8 0.0 12.0 0.0\n")
            Issue.record("a file without its closing 9s was accepted")
        } catch {
            #expect(error.reason.contains("9s"))
        }
    }
}
