// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// A magnetometer's calibration: the hard iron (an offset the boat's own magnets add to every
/// reading) and the soft iron (a symmetric 3×3 that undoes the stretching the boat's iron gives
/// the field), with the fit's quality. The corrected field is `softIron × (raw − offset)`, in µT,
/// in the device frame (the kernel's mount matrix applied, before `orientation=`).
///
/// ``MagnetometerCalibrator`` makes one from samples; `headingd calibrate` writes it as JSON; the
/// IIO source reads it. Reading checks it: a file with a non-finite number, a soft iron that is not
/// symmetric, not positive definite (it would mirror the field), has an element beyond ±3 or
/// shrinks or stretches the field more than 3×, or an offset over 5,000 µT is refused, never
/// applied.
public struct MagnetometerCalibration: Sendable, Hashable, Codable {
    /// What was fitted (the file's `mode`). How the sensor was turned while it sampled is the
    /// calibrator's ``MagnetometerCalibrator/Shape``: `sphere` gives ``ellipsoid`` or ``hardIron``,
    /// `circle` gives ``circle``.
    public enum Mode: String, Sendable, Hashable, Codable, CaseIterable {
        /// The hard iron only, the centre of a sphere of samples: too little of the sphere covered
        /// for a soft iron, or asked so.
        case hardIron
        /// An ellipsoid: hard and soft iron, from a sensor turned every way.
        case ellipsoid
        /// A circle: hard and soft iron in the horizontal plane, from a boat turned through a full
        /// circle (level or heeled; the accelerometer gives the plane). The vertical hard iron is
        /// seen only when the boat heeled both ways.
        case circle
    }

    /// The hard iron in µT, subtracted first.
    public var offset: Vector3
    /// The soft iron, symmetric, applied after the offset.
    public var softIron: Matrix3
    /// What was fitted.
    public var mode: Mode
    /// The corrected field's strength in µT (for ``Mode/circle``, its horizontal part).
    public var fieldStrength: Double
    /// The corrected field's inclination in degrees (down positive), when an accelerometer was read.
    public var inclination: Double?
    /// The fit's RMS residual in µT.
    public var residual: Double
    /// The heading error the residual amounts to, in degrees: `atan(residual / horizontal field)`.
    public var headingError: Double
    /// How much of the sphere (or, for ``Mode/circle``, of the circle) the samples covered, 0…1.
    public var coverage: Double
    /// The samples the fit used.
    public var samples: Int
    /// When it was made.
    public var date: Date
    /// The device it was made for (its name or label), if known.
    public var device: String?

    /// Creates a calibration.
    /// - Parameters:
    ///   - offset: The hard iron in µT.
    ///   - softIron: The soft iron (symmetric).
    ///   - mode: What was fitted.
    ///   - fieldStrength: The corrected field's strength in µT.
    ///   - inclination: The corrected field's inclination in degrees, if known.
    ///   - residual: The RMS residual in µT.
    ///   - headingError: The heading error the residual amounts to, in degrees.
    ///   - coverage: The sphere's or circle's coverage, 0…1.
    ///   - samples: The samples used.
    ///   - date: When it was made.
    ///   - device: The device it is for.
    public init(
        offset: Vector3, softIron: Matrix3 = .identity, mode: Mode, fieldStrength: Double, inclination: Double? = nil,
        residual: Double = 0, headingError: Double = 0, coverage: Double = 1, samples: Int = 0, date: Date = Date(), device: String? = nil
    ) {
        self.offset = offset
        self.softIron = softIron
        self.mode = mode
        self.fieldStrength = fieldStrength
        self.inclination = inclination
        self.residual = residual
        self.headingError = headingError
        self.coverage = coverage
        self.samples = samples
        self.date = date
        self.device = device
    }

    /// The corrected field.
    /// - Parameter field: The field as read, in µT, in the device frame.
    /// - Returns: `softIron × (field − offset)`.
    @inline(__always)
    public func corrected(_ field: Vector3) -> Vector3 { softIron * (field - offset) }

    /// Why a calibration read from outside is refused; `nil` when it may be applied.
    public var problem: String? {
        let numbers = [fieldStrength, residual, headingError, coverage] + [inclination ?? 0]
        guard offset.isFinite, softIron.isFinite, numbers.allSatisfy(\.isFinite) else { return "a number is not finite" }
        guard offset.length <= 5000 else { return "its hard iron (\(String(format: "%.4g", offset.length)) µT) is beyond any magnetometer's range" }
        let (a, b, c) = softIron.rows
        // No axis stretched more than 3×: a symmetric matrix's elements are within its largest eigenvalue.
        guard [a, b, c].allSatisfy({ max(abs($0.x), abs($0.y), abs($0.z)) <= 3 }) else {
            return "its soft iron stretches the field more than 3× along some axis"
        }
        guard abs(a.y - b.x) <= 1e-6 * max(1, abs(a.y)), abs(a.z - c.x) <= 1e-6 * max(1, abs(a.z)), abs(b.z - c.y) <= 1e-6 * max(1, abs(b.z)) else {
            return "its soft iron is not symmetric"
        }
        let determinant = softIron.determinant
        guard determinant > 1.0 / 27, determinant < 27 else { return "its soft iron shrinks or stretches the field more than 3×" }
        // Positive definite (Sylvester: the leading minors positive): a correction never mirrors or turns the field over.
        guard a.x > 0, a.x * b.y - a.y * b.x > 0 else { return "its soft iron mirrors or turns the field over (not positive definite)" }
        guard fieldStrength > 0, fieldStrength <= 1000, (0...1).contains(coverage), samples >= 0, residual >= 0, (0...180).contains(headingError) else {
            return "its field strength, coverage, fit error or sample count is out of range"
        }
        return nil
    }

    /// Reads a calibration file, checked.
    /// - Parameter data: The file's bytes (JSON).
    /// - Returns: The calibration.
    /// - Throws: ``FileError`` saying why it cannot be applied.
    public static func read(_ data: Data) throws(FileError) -> MagnetometerCalibration {
        guard data.count <= 64 * 1024 else { throw FileError(reason: "it is \(data.count) bytes, more than any calibration") }
        let calibration: MagnetometerCalibration
        do {
            calibration = try decoder.decode(MagnetometerCalibration.self, from: data)
        } catch {
            throw FileError(reason: "it is not a calibration (\(Self.summary(of: error)))")
        }
        if let problem = calibration.problem { throw FileError(reason: problem) }
        return calibration
    }

    /// The file's bytes: pretty-printed JSON with sorted keys and an ISO 8601 date.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Why a calibration file cannot be applied.
    public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
        /// A sentence for a person.
        public let reason: String
        /// The reason.
        public var description: String { reason }
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    private static func summary(of error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "no '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context), DecodingError.dataCorrupted(let context):
            (context.codingPath.map(\.stringValue).joined(separator: ".") + " " + context.debugDescription).trimmingCharacters(in: .whitespaces).prefix(120).description
        default: "unreadable"
        }
    }
}
