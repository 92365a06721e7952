// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

package import HeadingPorts

extension PortFailure {
    /// The heading fault a source reports for this failure: the code of the same name, and
    /// ``HeadingFault/Code/sourceUnavailable`` for a port that is busy or of the wrong kind (try
    /// again later, as for one not there).
    package var faultCode: HeadingFault.Code {
        switch code {
        case .deviceLost: .deviceLost
        case .permissionDenied: .permissionDenied
        default: .sourceUnavailable
        }
    }
}
