// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Whether a heading source may deliver headings, in the terms of CoreLocation's `CLAuthorizationStatus`.
public enum HeadingAuthorizationStatus: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Nobody has asked yet: call ``HeadingProxy/requestAuthorization()`` or ``HeadingProxy/enable()``.
    case notDetermined
    /// Configuration forbids this source; asking again will not change that.
    case restricted
    /// The system refused access, for example a permission error opening the device or socket.
    case denied
    /// The source may deliver headings.
    case authorized

    /// The status's name, as written in logs and JSON.
    public var description: String { rawValue }
}
