// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import HeadingPorts

/// Where a magnetic source's calibration stands: none (and why), or one in force with its fit and
/// age. What the status page, `/status.json`, `/metrics` and Signal K show of a magnetometer.
public struct CalibrationStatus: Sendable, Hashable {
    /// The state.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// No calibration: headings are uncorrected for the iron around the sensor.
        case none
        /// A calibration is in force.
        case calibrated
    }

    /// The state.
    public var state: State
    /// The calibration in force, when ``state`` is ``State/calibrated``.
    public var calibration: MagnetometerCalibration?
    /// The file it was read from, or looked for.
    public var file: String?
    /// Why there is none: no file, or a file that could not be applied.
    public var reason: String?
    /// Whether the calibration in force is being refined at sea (``CalibrationRefiner``).
    public var refining = false

    /// Creates a status.
    /// - Parameters:
    ///   - state: The state.
    ///   - calibration: The calibration in force.
    ///   - file: The file it came from, or was looked for.
    ///   - reason: Why there is none.
    public init(state: State, calibration: MagnetometerCalibration? = nil, file: String? = nil, reason: String? = nil) {
        self.state = state
        self.calibration = calibration
        self.file = file
        self.reason = reason
    }

    /// The calibration's age at `date`, in seconds; `nil` without one.
    /// - Parameter date: Now.
    public func age(at date: Date = Date()) -> TimeInterval? { calibration.map { max(0, date.timeIntervalSince($0.date)) } }

    /// The heading accuracy headings carry under this status, in degrees: twice the fit's
    /// estimated heading error (at least 0.5°) when calibrated, 30° without (an uncalibrated
    /// magnetometer is commonly 5–30° off).
    public var headingAccuracy: Double {
        guard state == .calibrated, let calibration else { return Self.uncalibratedAccuracy }
        return min(Self.uncalibratedAccuracy, max(0.5, 2 * calibration.headingError))
    }

    /// The heading accuracy an uncalibrated magnetometer's headings carry: 30°.
    public static let uncalibratedAccuracy = 30.0

    /// Reads the calibration at `path`: calibrated when it can be applied, none with the reason otherwise.
    /// - Parameters:
    ///   - path: The file.
    ///   - required: Whether the file was named (`calibration=PATH`): then its absence is said as a problem.
    /// - Returns: The status.
    public static func loading(_ path: String, required: Bool) -> CalibrationStatus {
        let data: Data
        switch contents(of: path) {
        case .success(let bytes): data = bytes
        case .failure(.absent):
            return CalibrationStatus(state: .none, file: path, reason: required ? "calibration file \(path) does not exist" : "no calibration file (\(path)): run headingd calibrate")
        case .failure(.unreadable(let why)):
            return CalibrationStatus(state: .none, file: path, reason: "calibration file \(path) cannot be read (\(why))")
        }
        do {
            return CalibrationStatus(state: .calibrated, calibration: try MagnetometerCalibration.read(data), file: path)
        } catch {
            return CalibrationStatus(state: .none, file: path, reason: "calibration file \(path) is not applied: \(error.reason)")
        }
    }

    private enum ReadFailure: Error {
        case absent
        case unreadable(String)
    }

    /// A regular file's first 64 KiB and one byte more (``MagnetometerCalibration/read(_:)``
    /// refuses anything longer): never a read without end (`calibration=/dev/zero`), never a wait (a FIFO).
    private static func contents(of path: String) -> Result<Data, ReadFailure> {
        let descriptor: Int32
        switch RegularFile.open(path) {
        case .success(let opened): descriptor = opened.descriptor
        case .failure(let failure) where failure.code == .wrongKind: return .failure(.unreadable("not a regular file"))
        case .failure(let failure): return .failure(failure.isMissing ? .absent : .unreadable(failure.reason))
        }
        defer { RegularFile.close(descriptor) }
        do {
            return .success(Data(try WholeFile.read(descriptor, limit: 64 * 1024, chunkSize: 64 * 1024 + 1).bytes))
        } catch {
            return .failure(.unreadable(error.description))
        }
    }
}

/// A source that states its calibration: a magnetometer's.
public protocol CalibrationReporting: AnyObject, Sendable {
    /// The calibration's status now; `nil` until the source has looked.
    var calibrationStatus: CalibrationStatus? { get }
}

extension CalibrationStatus: CustomStringConvertible {
    /// One line for a person: `calibrated (hardIron, 0.42 µT RMS, about 1.1° of heading) from FILE`,
    /// or `none: REASON`.
    public var description: String {
        guard state == .calibrated, let calibration else { return "none" + (reason.map { ": \($0)" } ?? "") }
        return "calibrated (\(calibration.mode.rawValue), " + String(format: "%.2f µT RMS, about %.1f° of heading", calibration.residual, calibration.headingError)
            + (refining ? ", refined at sea" : "") + ")" + (file.map { " from \($0)" } ?? "")
    }
}
