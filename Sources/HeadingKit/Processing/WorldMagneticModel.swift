// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// A World Magnetic Model: the spherical-harmonic model of the Earth's main magnetic field that
/// NOAA's NCEI and the British Geological Survey publish every five years, read from its
/// coefficient (`.COF`) file. It gives the magnetic declination — the variation between true
/// and magnetic north — anywhere on Earth for the model's five years.
///
/// ``wmm2025`` is built in. Another release (WMM2030) can be read with ``init(coefficientFile:)``.
/// The computation follows the WMM technical report: geodetic (WGS 84) to geocentric spherical
/// coordinates, Schmidt semi-normalised associated Legendre functions to degree 12, the secular
/// variation applied linearly from the epoch, and the field rotated back to geodetic axes.
public struct WorldMagneticModel: Sendable {
    /// Why a coefficient file could not be read.
    public struct FormatError: Error, Sendable, CustomStringConvertible {
        /// The 1-based line of the file.
        public let line: Int
        /// What is wrong there.
        public let reason: String
        /// `line N: reason`.
        public var description: String { "line \(line): \(reason)" }
    }

    /// The model's name from its header, such as `WMM-2025`.
    public let name: String
    /// The model's epoch as a decimal year, such as 2025.0: the date its main-field coefficients are for.
    public let epoch: Double
    /// The last decimal year the model is meant for: five years after the epoch.
    public var validUntil: Double { epoch + 5 }
    /// The highest degree of the expansion (12 for the WMM).
    public let degree: Int

    /// Main-field and secular-variation coefficients (nT and nT/year), indexed by `n * (n + 1) / 2 + m`.
    private let g: [Double]
    private let h: [Double]
    private let gRate: [Double]
    private let hRate: [Double]

    // WGS 84 and the model's reference radius, in kilometres.
    private static let semiMajorAxis = 6378.137
    private static let flattening = 1 / 298.257223563
    private static let referenceRadius = 6371.2

    /// Reads a model from the text of a `.COF` file: a header line (epoch, name, release date),
    /// then one line per coefficient (`n m g h ġ ḣ`), ending with a line of 9s.
    /// - Parameter text: The file's text.
    /// - Throws: ``FormatError`` naming the line that is wrong.
    public init(coefficientFile text: String) throws(FormatError) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard let header = lines.first?.split(separator: " ", omittingEmptySubsequences: true), header.count >= 2,
            let epoch = Double(header[0]), epoch.isFinite
        else { throw FormatError(line: 1, reason: "expected a header with the epoch and the model name") }
        var entries: [(n: Int, m: Int, values: [Double])] = []
        var ended = false
        for (index, line) in lines.enumerated().dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.isEmpty { continue }
            if fields.count == 1, fields[0].allSatisfy({ $0 == "9" }) {
                ended = true
                break
            }
            guard fields.count == 6, let n = Int(fields[0]), let m = Int(fields[1]), (1...200).contains(n), (0...n).contains(m) else {
                throw FormatError(line: index + 1, reason: "expected 'n m g h g-rate h-rate' with 1 ≤ n and 0 ≤ m ≤ n")
            }
            let values = fields[2...].compactMap { Double($0) }.filter(\.isFinite)
            guard values.count == 4 else { throw FormatError(line: index + 1, reason: "a coefficient is not a number") }
            entries.append((n, m, values))
        }
        guard ended else { throw FormatError(line: lines.count, reason: "the file does not end with its line of 9s") }
        let degree = entries.map(\.n).max() ?? 0
        guard degree >= 1 else { throw FormatError(line: 2, reason: "no coefficients") }
        let count = (degree + 1) * (degree + 2) / 2
        var g = [Double](repeating: 0, count: count), h = g, gRate = g, hRate = g
        var seen = Set<Int>()
        for entry in entries {
            let index = entry.n * (entry.n + 1) / 2 + entry.m
            seen.insert(index)
            (g[index], h[index], gRate[index], hRate[index]) = (entry.values[0], entry.values[1], entry.values[2], entry.values[3])
        }
        guard seen.count == count - 1 else {
            throw FormatError(line: lines.count, reason: "expected \(count - 1) coefficients up to degree \(degree), found \(seen.count)")
        }
        self.name = String(header[1])
        self.epoch = epoch
        self.degree = degree
        (self.g, self.h, self.gRate, self.hRate) = (g, h, gRate, hRate)
    }

    /// Whether a date lies in the model's five years, from its epoch to five years on.
    /// - Parameter date: The date.
    public func isValid(at date: Date) -> Bool {
        (epoch...validUntil).contains(Self.decimalYear(of: date))
    }

    /// The magnetic declination (variation) at a place and date, in degrees, East positive:
    /// true heading = magnetic heading + declination.
    /// - Parameters:
    ///   - latitude: Geodetic (WGS 84, as GNSS gives it) latitude in degrees, North positive.
    ///   - longitude: Longitude in degrees, East positive.
    ///   - altitude: Height above the WGS 84 ellipsoid in metres.
    ///   - date: The date. Outside the model's years the secular variation is extrapolated
    ///     (``isValid(at:)`` says when).
    /// - Returns: The declination in `(-180, 180]`.
    public func declination(latitude: Double, longitude: Double, altitude: Double = 0, at date: Date) -> Double {
        declination(latitude: latitude, longitude: longitude, altitude: altitude, decimalYear: Self.decimalYear(of: date))
    }

    /// The magnetic declination at a place and a decimal year, as the WMM test values give them.
    /// - Parameters:
    ///   - latitude: Geodetic latitude in degrees.
    ///   - longitude: Longitude in degrees.
    ///   - altitude: Height above the WGS 84 ellipsoid in metres.
    ///   - decimalYear: The year with its fraction, such as 2027.5.
    /// - Returns: The declination in degrees, East positive.
    public func declination(latitude: Double, longitude: Double, altitude: Double = 0, decimalYear: Double) -> Double {
        let field = northEastDown(latitude: latitude, longitude: longitude, altitudeKilometres: altitude / 1000, decimalYear: decimalYear)
        return atan2(field.east, field.north) * 180 / .pi
    }

    /// A date as a decimal year in UTC: 2025-07-02T12:00Z is 2025.5.
    /// - Parameter date: The date.
    public static func decimalYear(of date: Date) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let year = calendar.component(.year, from: date)
        let start = calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
        let end = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))!
        return Double(year) + date.timeIntervalSince(start) / end.timeIntervalSince(start)
    }

    /// The field's north, east and down components in nT on geodetic axes.
    func northEastDown(latitude: Double, longitude: Double, altitudeKilometres: Double, decimalYear: Double)
        -> (north: Double, east: Double, down: Double)
    {
        // Just short of the poles, where east is undefined.
        let geodeticLatitude = min(max(latitude, -89.999_999), 89.999_999) * .pi / 180
        let lambda = longitude * .pi / 180
        // Geodetic to geocentric spherical coordinates (WGS 84).
        let eccentricitySquared = Self.flattening * (2 - Self.flattening)
        let sinLatitude = sin(geodeticLatitude)
        let primeVertical = Self.semiMajorAxis / (1 - eccentricitySquared * sinLatitude * sinLatitude).squareRoot()
        let p = (primeVertical + altitudeKilometres) * cos(geodeticLatitude)
        let z = (primeVertical * (1 - eccentricitySquared) + altitudeKilometres) * sinLatitude
        let radius = (p * p + z * z).squareRoot()
        let geocentricLatitude = asin(z / radius)
        let cosTheta = sin(geocentricLatitude)  // θ: geocentric colatitude
        let sinTheta = cos(geocentricLatitude)

        // Schmidt semi-normalised P(n, m)(cos θ) and dP/dθ.
        let count = (degree + 1) * (degree + 2) / 2
        var legendre = [Double](repeating: 0, count: count)
        var derivative = [Double](repeating: 0, count: count)
        func index(_ n: Int, _ m: Int) -> Int { n * (n + 1) / 2 + m }
        legendre[0] = 1
        for n in 1...degree {
            let nd = Double(n)
            for m in 0...n {
                let md = Double(m)
                if m == n {
                    legendre[index(n, n)] =
                        n == 1 ? sinTheta : ((2 * nd - 1) / (2 * nd)).squareRoot() * sinTheta * legendre[index(n - 1, n - 1)]
                } else {
                    let previous = legendre[index(n - 1, m)]
                    let beforePrevious = n >= 2 && m <= n - 2 ? legendre[index(n - 2, m)] : 0
                    legendre[index(n, m)] =
                        ((2 * nd - 1) * cosTheta * previous - ((nd - 1) * (nd - 1) - md * md).squareRoot() * beforePrevious)
                        / (nd * nd - md * md).squareRoot()
                }
                // sin θ · dP(n,m)/dθ = n cos θ P(n,m) − √(n² − m²) P(n−1,m)
                let lower = m <= n - 1 ? legendre[index(n - 1, m)] : 0
                derivative[index(n, m)] = (nd * cosTheta * legendre[index(n, m)] - (nd * nd - md * md).squareRoot() * lower) / sinTheta
            }
        }

        let years = decimalYear - epoch
        var north = 0.0, east = 0.0, down = 0.0
        let ratio = Self.referenceRadius / radius
        var power = ratio * ratio  // (a/r)^(n+2), starting at n = 0
        for n in 1...degree {
            power *= ratio
            let nd = Double(n)
            for m in 0...n {
                let i = index(n, m)
                let gnm = g[i] + years * gRate[i]
                let hnm = h[i] + years * hRate[i]
                let cosML = cos(Double(m) * lambda)
                let sinML = sin(Double(m) * lambda)
                let cosine = gnm * cosML + hnm * sinML
                north += power * cosine * derivative[i]
                east += power * Double(m) * (gnm * sinML - hnm * cosML) * legendre[i] / sinTheta
                down -= power * (nd + 1) * cosine * legendre[i]
            }
        }
        // Rotate from geocentric to geodetic axes.
        let psi = geocentricLatitude - geodeticLatitude
        return (north * cos(psi) - down * sin(psi), east, north * sin(psi) + down * cos(psi))
    }
}
