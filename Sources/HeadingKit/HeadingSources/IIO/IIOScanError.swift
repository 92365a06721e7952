// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Why a buffer's scan cannot be read: a channel's `_type` that is not one (``IIOScanType``), or
/// channels whose layout cannot be known (``IIOScanLayout``). The reason names the text and what
/// is expected.
public struct IIOScanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public let reason: String
    /// The reason.
    public var description: String { reason }
}
