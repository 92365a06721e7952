// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Which IIO devices an ``IIOHeadingSource`` reads, and how: `iio:` (the first magnetometer, with
/// the accelerometer and gyroscope beside it) or `iio://MAG?accel=ACC&gyro=GYRO&rate=HZ&root=DIR&orientation=…`,
/// each device by `iio:deviceN`, its `name` or its `label`.
///
/// `calibration=PATH` names the calibration file `headingd calibrate` wrote; without it the
/// source looks in its configuration's ``IIOHeadingSource/Configuration/calibrationDirectory``.
/// `calibration_refine=false` turns off the refinement of its hard iron at sea (``CalibrationRefiner``).
///
/// `buffer=false` reads each device directly (its `_raw` files) even where its driver has a
/// buffer: by default whole scans are read from `/dev/iio:deviceN` where the device can give them
/// (``IIOHeadingSource``). `trigger=NAME` gives each buffered device that trigger (an `hrtimer` or
/// `sysfs` trigger an administrator made, by its `name`) instead of its own.
///
/// `orientation=` turns the device frame (X right, Y forward, Z up) to the vessel's for a sensor
/// mounted otherwise: a named form (`level`, `upside-down`, `turned-right`, `turned-left`,
/// `turned-around`: the sensor's +Y pointing forward, to starboard, to port, aft; `upside-down`
/// turned over about its Y axis) or a matrix `a,b,c;d,e,f;g,h,i` (rows; v_vessel = M × v_device).
public struct IIOEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Why a text is not an IIO source.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// A sentence for a person.
        public let reason: String
        /// The reason.
        public var description: String { reason }
    }

    /// The magnetometer: `iio:deviceN`, a name or a label; `nil` for the first found.
    public var magnetometer: String?
    /// The accelerometer; `nil` for the one beside the magnetometer (same parent device, or the only one).
    public var accelerometer: String?
    /// The gyroscope; `nil` for the one beside the magnetometer.
    public var gyroscope: String?
    /// Samples a second. Default 25.
    public var rate: Double
    /// What stands for `/sys/bus/iio/devices` (tests, umockdev).
    public var root: String
    /// The vessel's frame from the device's.
    public var orientation: Matrix3
    /// The calibration file; `nil` for the calibration directory's file of the magnetometer.
    public var calibration: String?
    /// Whether the hard iron of the calibration in force is refined while running. Default `true`.
    public var refinesCalibration = true
    /// Whether whole scans are read from the kernel's buffer where a device has one (only with the
    /// system's ``root``); `false`: direct reads. Default `true`.
    public var usesBuffer = true
    /// The trigger given to each buffered device, by its `name` (an `hrtimer` trigger made in
    /// configfs, say); `nil` for the device's own. Default `nil`.
    public var trigger: String?
    /// The `orientation=` parameter as given, for ``description``.
    private var orientationText: String?

    /// The default root.
    public static let systemRoot = "/sys/bus/iio/devices"

    /// Creates an endpoint.
    /// - Parameters:
    ///   - magnetometer: The magnetometer, or `nil` for the first.
    ///   - accelerometer: The accelerometer, or `nil` for the one beside it.
    ///   - gyroscope: The gyroscope, or `nil` for the one beside it.
    ///   - rate: Samples a second. Default 25.
    ///   - root: The devices' directory. Default `/sys/bus/iio/devices`.
    ///   - orientation: The vessel's frame from the device's. Default identity.
    ///   - calibration: The calibration file (``MagnetometerCalibration/encoded()``'s JSON), or `nil`
    ///     for the calibration directory's file of the magnetometer.
    ///   - refinesCalibration: Whether the hard iron in force is refined while running. Default `true`.
    public init(
        magnetometer: String? = nil, accelerometer: String? = nil, gyroscope: String? = nil, rate: Double = 25,
        root: String = systemRoot, orientation: Matrix3 = .identity, calibration: String? = nil, refinesCalibration: Bool = true
    ) {
        self.magnetometer = magnetometer
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
        self.rate = rate
        self.root = root
        self.orientation = orientation
        self.calibration = calibration
        self.refinesCalibration = refinesCalibration
    }

    /// Parses `iio:` or `iio://MAG?…`.
    /// - Parameter text: The source URL.
    /// - Throws: ``ParseError`` naming what is wrong.
    public init(parsing text: String) throws(ParseError) {
        self.init()
        var base = Substring(text)
        var query: Substring = ""
        if let mark = text.firstIndex(of: "?") {
            base = text[..<mark]
            query = text[text.index(after: mark)...]
        }
        if base == "iio:" || base == "iio://" {
            magnetometer = nil
        } else if base.hasPrefix("iio://") {
            let name = String(base.dropFirst("iio://".count))
            guard Self.isDeviceName(name) else { throw ParseError(reason: "'\(name.prefix(40))' is not a device (iio:deviceN, a name or a label)") }
            magnetometer = name
        } else {
            throw ParseError(
                reason: "an IIO source is iio: or iio://DEVICE[?accel=DEVICE&gyro=DEVICE&rate=HZ&root=DIR&orientation=…&calibration=FILE&calibration_refine=false&buffer=false&trigger=NAME]"
            )
        }
        for parameter in query.split(separator: "&") {
            let parts = parameter.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            guard parts.count == 2 else { throw ParseError(reason: "parameter '\(parameter.prefix(40))' is not NAME=VALUE") }
            switch parts[0] {
            case "accel", "gyro":
                guard Self.isDeviceName(parts[1]) || parts[1] == "none" else { throw ParseError(reason: "\(parts[0])=\(parts[1].prefix(40)) is not a device") }
                if parts[0] == "accel" { accelerometer = parts[1] } else { gyroscope = parts[1] }
            case "rate":
                guard let value = Double(parts[1]), value.isFinite, (0.1...200).contains(value) else {
                    throw ParseError(reason: "rate must be between 0.1 and 200 samples a second, not '\(parts[1].prefix(20))'")
                }
                rate = value
            case "root":
                guard parts[1].hasPrefix("/"), !parts[1].contains("\0") else { throw ParseError(reason: "root must be an absolute directory, not '\(parts[1].prefix(60))'") }
                root = parts[1]
            case "calibration":
                guard parts[1].hasPrefix("/"), !parts[1].contains("\0") else {
                    throw ParseError(reason: "calibration must be an absolute file, not '\(parts[1].prefix(60))'")
                }
                calibration = parts[1]
            case "calibration_refine":
                guard let value = Bool(parts[1]) else { throw ParseError(reason: "calibration_refine must be true or false, not '\(parts[1].prefix(20))'") }
                refinesCalibration = value
            case "buffer":
                guard let value = Bool(parts[1]) else { throw ParseError(reason: "buffer must be true or false, not '\(parts[1].prefix(20))'") }
                usesBuffer = value
            case "trigger":
                guard Self.isDeviceName(parts[1]) else { throw ParseError(reason: "trigger=\(parts[1].prefix(40)) is not a trigger's name") }
                trigger = parts[1]
            case "orientation":
                guard let matrix = Self.orientation(parts[1]) else {
                    throw ParseError(
                        reason: "orientation must be level, upside-down, turned-right, turned-left, turned-around or a rotation matrix "
                            + "a,b,c;d,e,f;g,h,i, not '\(parts[1].prefix(60))'"
                    )
                }
                orientation = matrix
                orientationText = parts[1]
            default:
                throw ParseError(reason: "unknown IIO parameter '\(parts[0].prefix(30))': expected accel, gyro, rate, root, orientation, calibration, calibration_refine, buffer or trigger")
            }
        }
    }

    /// A named orientation or a matrix, when it is a rotation (orthonormal, determinant +1).
    static func orientation(_ text: String) -> Matrix3? {
        let x = Vector3(x: 1, y: 0, z: 0), y = Vector3(x: 0, y: 1, z: 0), z = Vector3(x: 0, y: 0, z: 1)
        let matrix: Matrix3? = switch text {
            case "level": .identity
            case "upside-down": Matrix3(x * -1, y, z * -1)  // over about Y: X and Z reversed
            case "turned-right": Matrix3(y, x * -1, z)  // the device's +Y to starboard (the vessel's +X), its +X aft
            case "turned-left": Matrix3(y * -1, x, z)  // the device's +Y to port, its +X forward
            case "turned-around": Matrix3(x * -1, y * -1, z)
            default: IIOValue.matrix(Array(text.utf8))
        }
        guard let matrix, matrix.isFinite, matrix.isOrthonormal(), abs(matrix.determinant - 1) < 1e-3 else { return nil }
        return matrix
    }

    private static func isDeviceName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64 && text.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "&") }
    }

    /// The URL: `iio:` or `iio://MAG`, with the parameters that differ from the defaults.
    public var description: String {
        var parameters: [String] = []
        if let accelerometer { parameters.append("accel=\(accelerometer)") }
        if let gyroscope { parameters.append("gyro=\(gyroscope)") }
        if rate != 25 { parameters.append("rate=\(rate)") }
        if root != Self.systemRoot { parameters.append("root=\(root)") }
        if let orientationText { parameters.append("orientation=\(orientationText)") }
        if let calibration { parameters.append("calibration=\(calibration)") }
        if !refinesCalibration { parameters.append("calibration_refine=false") }
        if !usesBuffer { parameters.append("buffer=false") }
        if let trigger { parameters.append("trigger=\(trigger)") }
        return (magnetometer.map { "iio://\($0)" } ?? "iio:") + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    }
}
