// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import HeadingKit

/// A magnetometer and accelerometer on a boat, in numbers: the World Magnetic Model's field at a
/// place, seen from an attitude, through the boat's hard iron (an offset) and soft iron (a
/// symmetric distortion), with noise. For tests and benchmarks of calibration and tilt
/// compensation: the same seed gives the same readings.
///
/// Frames: the device's is the IIO ABI's (X right, Y forward, Z up); the world's is magnetic east,
/// magnetic north, up. An attitude is a heading (clockwise from magnetic north), then pitch (bow up), then roll
/// (starboard down).
public struct SimulatedMagnetometer: Sendable {
    /// The Earth's field in the world frame (magnetic east, magnetic north, up), in µT: headings
    /// here are magnetic, so the field has no east part.
    public var earthField: Vector3
    /// The hard iron added to every reading, in µT.
    public var hardIron: Vector3
    /// The soft iron the true field goes through (symmetric).
    public var softIron: Matrix3
    /// The magnetometer's noise, standard deviation in µT on each axis.
    public var noise: Double
    /// The accelerometer's noise, standard deviation in m/s² on each axis.
    public var accelerationNoise: Double
    private var generator: SeededRandomNumberGenerator

    /// Creates a simulated sensor.
    /// - Parameters:
    ///   - field: The model's field at the place (nT), as ``WorldMagneticModel/field(latitude:longitude:altitude:at:)`` gives it.
    ///   - hardIron: The hard iron in µT. Default none.
    ///   - softIron: The soft iron. Default none.
    ///   - noise: The magnetometer's noise in µT. Default 0.
    ///   - accelerationNoise: The accelerometer's noise in m/s². Default 0.
    ///   - seed: The random numbers' seed.
    public init(
        field: WorldMagneticModel.Field, hardIron: Vector3 = .zero, softIron: Matrix3 = .identity, noise: Double = 0,
        accelerationNoise: Double = 0, seed: UInt64 = 1
    ) {
        earthField = Vector3(x: 0, y: field.horizontalIntensity / 1000, z: -field.down / 1000)
        self.hardIron = hardIron
        self.softIron = softIron
        self.noise = noise
        self.accelerationNoise = accelerationNoise
        generator = SeededRandomNumberGenerator(seed: seed)
    }

    /// The device's axes in the world frame for an attitude.
    /// - Parameters:
    ///   - heading: Degrees clockwise from magnetic north to +Y.
    ///   - pitch: Degrees, bow up.
    ///   - roll: Degrees, starboard down.
    /// - Returns: The rotation from the device frame to the world's.
    public static func rotation(heading: Double, pitch: Double, roll: Double) -> Matrix3 {
        let (psi, theta, phi) = (-heading * .pi / 180, pitch * .pi / 180, roll * .pi / 180)
        let yaw = Matrix3(Vector3(x: cos(psi), y: -sin(psi), z: 0), Vector3(x: sin(psi), y: cos(psi), z: 0), Vector3(x: 0, y: 0, z: 1))
        let pitching = Matrix3(Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: cos(theta), z: -sin(theta)), Vector3(x: 0, y: sin(theta), z: cos(theta)))
        let rolling = Matrix3(Vector3(x: cos(phi), y: 0, z: sin(phi)), Vector3(x: 0, y: 1, z: 0), Vector3(x: -sin(phi), y: 0, z: cos(phi)))
        return yaw * pitching * rolling
    }

    /// What the sensors read at an attitude.
    /// - Parameters:
    ///   - heading: Degrees clockwise from magnetic north to +Y.
    ///   - pitch: Degrees, bow up.
    ///   - roll: Degrees, starboard down.
    /// - Returns: The field in µT and the acceleration in m/s², in the device frame.
    public mutating func reading(heading: Double, pitch: Double, roll: Double) -> (field: Vector3, acceleration: Vector3) {
        let toDevice = Self.rotation(heading: heading, pitch: pitch, roll: roll).transposed
        let field = softIron * (toDevice * earthField) + hardIron + jitter(noise)
        let acceleration = toDevice * Vector3(x: 0, y: 0, z: 9.80665) + jitter(accelerationNoise)
        return (field, acceleration)
    }

    /// A random attitude, the sensor turned every way (uniform over the sphere of directions).
    /// - Returns: Heading, pitch and roll in degrees.
    public mutating func randomAttitude() -> (heading: Double, pitch: Double, roll: Double) {
        let heading = Double.random(in: 0..<360, using: &generator)
        let pitch = asin(Double.random(in: -1...1, using: &generator)) * 180 / .pi
        let roll = Double.random(in: -180..<180, using: &generator)
        return (heading, pitch, roll)
    }

    /// A random number in a range, from the simulation's generator.
    /// - Parameter range: The range.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &generator) }

    private mutating func jitter(_ deviation: Double) -> Vector3 {
        guard deviation > 0 else { return .zero }
        return Vector3(
            x: generator.nextGaussian(standardDeviation: deviation), y: generator.nextGaussian(standardDeviation: deviation),
            z: generator.nextGaussian(standardDeviation: deviation)
        )
    }
}
