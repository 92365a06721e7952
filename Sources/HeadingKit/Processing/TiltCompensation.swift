// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A magnetometer's heading with the tilt taken out by the accelerometer, in the device frame of
/// the IIO ABI and Android (X right, Y forward, Z up; at rest the accelerometer reads +g on the
/// axis pointing up): East = down × field, North = East × down, and the heading is the direction
/// of +Y from magnetic north, clockwise. Heel and trim then leave the heading where it is, as long
/// as the accelerometer sees gravity alone (a boat's slow motion; a gyroscope's fusion does better
/// in a seaway).
///
/// Pure: vectors in, angles out. `nil` when no heading can be had: free fall (no gravity to tell
/// down), no field, or a field along gravity (at a magnetic pole, or a magnet on the sensor).
public enum TiltCompensation {
    /// A heading and the attitude it was taken at.
    public struct Attitude: Sendable, Hashable {
        /// Degrees clockwise from magnetic north to the device's +Y axis, in `[0, 360)`.
        public var heading: Double
        /// Degrees, bow (+Y) up positive.
        public var pitch: Double
        /// Degrees, starboard (+X) down positive.
        public var roll: Double
    }

    /// Why no heading could be had.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The accelerometer reads (nearly) nothing: free fall, or a dead sensor.
        case noGravity(Double)
        /// The magnetometer reads (nearly) nothing.
        case noField(Double)
        /// The field points along gravity: its horizontal part is too small to give a direction.
        case fieldAlongGravity

        /// A sentence for a person.
        public var description: String {
            switch self {
            case .noGravity(let length):
                "the accelerometer reads \(String(format: "%.2f", length)) m/s² (free fall, or a dead sensor): down cannot be told, no tilt compensation"
            case .noField(let length):
                "the magnetometer reads a field of \(String(format: "%.3f", length)) (none: a dead sensor, or shielded)"
            case .fieldAlongGravity: "the magnetic field points straight down or up: its horizontal part gives no direction"
            }
        }
    }

    /// The least acceleration taken for gravity, in m/s² (a quarter of g).
    public static let minimumGravity = 2.5

    /// The tilt-compensated heading, pitch and roll.
    /// - Parameters:
    ///   - field: The magnetic field in the device frame (any unit).
    ///   - acceleration: The acceleration in the device frame, in m/s² (+g up at rest).
    ///   - forward: The device axis the heading is of. Default +Y.
    /// - Returns: The attitude.
    /// - Throws: ``Failure`` when no heading can be had.
    public static func attitude(field: Vector3, acceleration: Vector3, forward: Vector3 = Vector3(x: 0, y: 1, z: 0)) throws(Failure) -> Attitude {
        let gravity = acceleration.length
        guard gravity.isFinite, gravity >= minimumGravity else { throw .noGravity(gravity.isFinite ? gravity : 0) }
        let fieldLength = field.length
        guard fieldLength.isFinite, fieldLength > 1e-9 else { throw .noField(fieldLength.isFinite ? fieldLength : 0) }
        let down = acceleration * (-1 / gravity)
        let east = down.cross(field * (1 / fieldLength))  // unit vectors: nothing overflows
        let eastLength = east.length
        // Less than about 0.6° of the field off the vertical: no direction worth giving.
        guard eastLength > 0.01 else { throw .fieldAlongGravity }
        let north = east.cross(down)
        let heading = atan2(forward.dot(east) / eastLength, forward.dot(north) / north.length) * 180 / .pi
        let up = acceleration * (1 / gravity)
        let pitch = asin(max(-1, min(1, up.y))) * 180 / .pi
        let roll = atan2(-up.x, up.z) * 180 / .pi
        return Attitude(heading: Degrees.normalized(heading) ?? 0, pitch: pitch, roll: roll)
    }
}
