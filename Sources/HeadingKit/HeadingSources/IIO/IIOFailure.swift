// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Why the IIO source could not read a device, or not the way it asked: the one error of the IIO
/// reader (its choice of devices, their channels, their buffers). A code, the fault the source
/// reports, and a reason for a person that names the file and, where there is one, the fix.
///
/// A buffer that cannot be used is ``HeadingFault/Code/sourceUnavailable`` and no fault: the
/// device is read directly instead and the reason is logged. (A scan's layout that cannot be
/// known is the public ``IIOScanError``, which the parsers throw.)
package struct IIOFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The fault it is.
    package let code: HeadingFault.Code
    /// A sentence for a person.
    package let reason: String
    package var description: String { reason }

    package init(code: HeadingFault.Code, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// Why a device's buffer is not read, for the log: the device is read directly instead.
    static func bufferUnavailable(_ reason: String) -> IIOFailure { IIOFailure(code: .sourceUnavailable, reason: reason) }
}
