// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

package import HeadingPorts

extension ByteStreamFailure {
    /// The heading fault a source reports for this failure: the code of the same name.
    package var faultCode: HeadingFault.Code { HeadingFault.Code(rawValue: code.rawValue) }
}
