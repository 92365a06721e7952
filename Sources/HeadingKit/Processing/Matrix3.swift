// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A 3×3 matrix, row by row: the kernel's mount matrix, a sensor's orientation on board.
public struct Matrix3: Sendable, Hashable, CustomStringConvertible {
    /// The rows, top first.
    public var rows: (Vector3, Vector3, Vector3)

    /// Creates a matrix from its rows.
    /// - Parameters:
    ///   - first: The first row.
    ///   - second: The second row.
    ///   - third: The third row.
    public init(_ first: Vector3, _ second: Vector3, _ third: Vector3) { rows = (first, second, third) }

    /// The identity.
    public static let identity = Matrix3(Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 1, z: 0), Vector3(x: 0, y: 0, z: 1))

    /// The matrix times a vector: each row's dot product with it.
    public static func * (matrix: Matrix3, vector: Vector3) -> Vector3 {
        Vector3(x: matrix.rows.0.dot(vector), y: matrix.rows.1.dot(vector), z: matrix.rows.2.dot(vector))
    }

    /// The product of two matrices.
    public static func * (lhs: Matrix3, rhs: Matrix3) -> Matrix3 {
        let columns = rhs.transposed.rows
        func row(_ row: Vector3) -> Vector3 { Vector3(x: row.dot(columns.0), y: row.dot(columns.1), z: row.dot(columns.2)) }
        return Matrix3(row(lhs.rows.0), row(lhs.rows.1), row(lhs.rows.2))
    }

    /// The transpose (for a rotation, its inverse).
    public var transposed: Matrix3 {
        let (a, b, c) = rows
        return Matrix3(Vector3(x: a.x, y: b.x, z: c.x), Vector3(x: a.y, y: b.y, z: c.y), Vector3(x: a.z, y: b.z, z: c.z))
    }

    /// The determinant: ±1 for a rotation or a rotation with a mirror.
    public var determinant: Double { rows.0.dot(rows.1.cross(rows.2)) }

    /// The inverse, by cofactors; `nil` when the matrix is singular (or nearly: |det| < 1e-12).
    public var inverse: Matrix3? {
        let (a, b, c) = rows
        let determinant = self.determinant
        guard determinant.isFinite, abs(determinant) >= 1e-12 else { return nil }
        // The columns of the adjugate are the cross products of the rows.
        let adjugate = Matrix3(b.cross(c), c.cross(a), a.cross(b)).transposed
        let scale = 1 / determinant
        return Matrix3(adjugate.rows.0 * scale, adjugate.rows.1 * scale, adjugate.rows.2 * scale)
    }

    /// Whether every entry is finite.
    public var isFinite: Bool { rows.0.isFinite && rows.1.isFinite && rows.2.isFinite }

    /// Whether it turns without stretching: its rows are orthonormal (within `tolerance`).
    public func isOrthonormal(tolerance: Double = 1e-3) -> Bool {
        let product = self * transposed
        let identity = Matrix3.identity
        for (row, expected) in [(product.rows.0, identity.rows.0), (product.rows.1, identity.rows.1), (product.rows.2, identity.rows.2)] {
            if (row - expected).length > tolerance { return false }
        }
        return true
    }

    /// Whether every entry is the same.
    public static func == (lhs: Matrix3, rhs: Matrix3) -> Bool {
        lhs.rows.0 == rhs.rows.0 && lhs.rows.1 == rhs.rows.1 && lhs.rows.2 == rhs.rows.2
    }

    /// Hashes the entries.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rows.0)
        hasher.combine(rows.1)
        hasher.combine(rows.2)
    }

    /// The kernel's form: `a, b, c; d, e, f; g, h, i`.
    public var description: String {
        [rows.0, rows.1, rows.2].map { "\($0.x), \($0.y), \($0.z)" }.joined(separator: "; ")
    }
}

extension Matrix3: Codable {
    /// Reads three rows of three finite numbers: `[[a, b, c], [d, e, f], [g, h, i]]`.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for anything else.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let first = try container.decode(Vector3.self), second = try container.decode(Vector3.self), third = try container.decode(Vector3.self)
        guard container.isAtEnd else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a matrix is three rows"))
        }
        self.init(first, second, third)
    }

    /// Writes the rows.
    /// - Parameter encoder: The encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(rows.0)
        try container.encode(rows.1)
        try container.encode(rows.2)
    }
}
