// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Why one line of input could not be turned into a report.
public struct LineDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The fault code this error becomes: ``HeadingFault/Code/malformedInput`` or ``HeadingFault/Code/outOfRange``.
    public let code: HeadingFault.Code
    /// A sentence for a person: what is wrong with the line.
    public let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The fault code.
    ///   - reason: What is wrong.
    public init(code: HeadingFault.Code, reason: String) {
        self.code = code
        self.reason = reason
    }

    static func malformed(_ reason: String) -> Self { Self(code: .malformedInput, reason: reason) }
    static func outOfRange(_ reason: String) -> Self { Self(code: .outOfRange, reason: reason) }

    /// The reason.
    public var description: String { reason }
}
