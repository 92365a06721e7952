// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A vector in three dimensions: a magnetic field, an acceleration, a rate of turn, in a sensor's
/// or the device's frame (the IIO ABI's and Android's: X right, Y forward, Z up).
public struct Vector3: Sendable, Hashable, CustomStringConvertible {
    /// The X component.
    public var x: Double
    /// The Y component.
    public var y: Double
    /// The Z component.
    public var z: Double

    /// Creates a vector.
    /// - Parameters:
    ///   - x: The X component.
    ///   - y: The Y component.
    ///   - z: The Z component.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector.
    public static let zero = Vector3(x: 0, y: 0, z: 0)

    /// The length.
    public var length: Double { (x * x + y * y + z * z).squareRoot() }

    /// Whether every component is finite.
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// The dot product.
    /// - Parameter other: The other vector.
    /// - Returns: `self · other`.
    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    /// The cross product.
    /// - Parameter other: The other vector.
    /// - Returns: `self × other`.
    public func cross(_ other: Vector3) -> Vector3 {
        Vector3(x: y * other.z - z * other.y, y: z * other.x - x * other.z, z: x * other.y - y * other.x)
    }

    /// The vector scaled by `factor`.
    public static func * (vector: Vector3, factor: Double) -> Vector3 {
        Vector3(x: vector.x * factor, y: vector.y * factor, z: vector.z * factor)
    }

    /// The sum.
    public static func + (lhs: Vector3, rhs: Vector3) -> Vector3 { Vector3(x: lhs.x + rhs.x, y: lhs.y + rhs.y, z: lhs.z + rhs.z) }

    /// The difference.
    public static func - (lhs: Vector3, rhs: Vector3) -> Vector3 { Vector3(x: lhs.x - rhs.x, y: lhs.y - rhs.y, z: lhs.z - rhs.z) }

    /// `(x, y, z)`.
    public var description: String { "(\(x), \(y), \(z))" }
}

extension Vector3: Codable {
    /// Reads `[x, y, z]`, each finite.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for anything else.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let x = try container.decode(Double.self), y = try container.decode(Double.self), z = try container.decode(Double.self)
        guard container.isAtEnd, x.isFinite, y.isFinite, z.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a vector is three finite numbers"))
        }
        self.init(x: x, y: y, z: z)
    }

    /// Writes `[x, y, z]`.
    /// - Parameter encoder: The encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(x)
        try container.encode(y)
        try container.encode(z)
    }
}
