// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts

/// Whether this process may read a device's file — a serial line, an IIO channel — as a source's
/// ``HeadingSource/requestAuthorization()`` answers: authorized, or denied with the
/// ``HeadingFault/Code/permissionDenied`` fault that says why; `nil` when it cannot tell yet (the
/// file is not there: a device not plugged in).
/// - Parameters:
///   - path: The file.
///   - source: The source's name, for the fault.
///   - hint: What to do about a refusal, appended to the reason (`is this user in the dialout group?`).
/// - Returns: The status, and the fault that explains a refusal.
package func readAuthorization(of path: String, source: String, hint: String? = nil) -> (status: HeadingAuthorizationStatus, fault: HeadingFault?)? {
    switch ReadAccess.check(path) {
    case .readable: return (.authorized, nil)
    case .unknown: return nil
    case .refused(let why):
        let reason = "cannot read \(path): \(why)" + (hint.map { " (\($0))" } ?? "")
        return (.denied, HeadingFault(code: .permissionDenied, source: source, reason: reason))
    }
}

extension HeadingSourceState {
    /// Answers ``HeadingSource/requestAuthorization()`` for a source whose access is a file's: the
    /// status already known, else whether `path` may be read (its refusal's fault first); nothing
    /// while it cannot tell (no file yet: the source's first attempt will say).
    /// - Parameters:
    ///   - authorization: Where the source keeps its status.
    ///   - path: The file to try, or `nil` when there is none to try now.
    ///   - hint: What to do about a refusal.
    ///   - source: The source answering.
    package func answerAuthorization(
        _ authorization: WritableKeyPath<Value, HeadingAuthorizationStatus> & Sendable, reading path: @autoclosure () -> String?, hint: String? = nil,
        from source: any HeadingSource
    ) {
        var status = withLock { $0[keyPath: authorization] }
        if status == .notDetermined, let path = path(), let answer = readAuthorization(of: path, source: source.name, hint: hint) {
            if let fault = answer.fault { report(.fault(fault), from: source) }
            status = answer.status
        }
        guard status != .notDetermined else { return }
        withLock { $0[keyPath: authorization] = status }
        report(.authorizationChanged(status), from: source)
    }
}
