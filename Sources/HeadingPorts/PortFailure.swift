// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Why a port could not be opened, read or written: the one error of the ports' layer (streams,
/// CAN links, files, sysfs attributes, character devices), a ``Code`` of stable values, a reason
/// for a person, and the system's error number where the system gave one. Each caller words the
/// failure for its own reader (a heading fault, a log line, a refusal at start) from these.
package struct PortFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure, as stable values. The first three are heading faults' names too: a
    /// source that reads the port reports the fault of that name (HeadingKit's `faultCode`).
    package struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The stable name.
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// Not there, or not answering: try again later.
        package static let sourceUnavailable = Code(rawValue: "sourceUnavailable")
        /// It was there and went away (unplugged, hung up, bus-off).
        package static let deviceLost = Code(rawValue: "deviceLost")
        /// Refused by the system (`EACCES`, `EPERM`, `EROFS`: a read-only `/sys` under a unit's
        /// `ProtectKernelTunables=`): a permission to grant, not a device missing.
        package static let permissionDenied = Code(rawValue: "permissionDenied")
        /// There, but not the kind of file asked for (a FIFO or a directory where a regular file
        /// should be, a regular file where a character device should be): the ``PortFailure/reason``
        /// says what it is instead.
        package static let wrongKind = Code(rawValue: "wrongKind")
        /// Another program has it (`EBUSY`: the kernel lets one reader have an IIO buffer).
        package static let busy = Code(rawValue: "busy")
    }

    /// What kind of failure.
    package let code: Code
    /// What happened, naming the device or address where the caller gave one; for
    /// ``Code/wrongKind``, what the file is instead (`a FIFO`).
    package let reason: String
    /// Whether trying again can help: not for standard input at its end.
    package var isFinal = false
    /// The system's error number, where the system gave one (`ETIMEDOUT` for a connection that got
    /// no answer in time, `ECANCELED` for one stopped while it waited).
    package var errorNumber: Int32?

    package init(code: Code, reason: String, isFinal: Bool = false, errorNumber: Int32? = nil) {
        self.code = code
        self.reason = reason
        self.isFinal = isFinal
        self.errorNumber = errorNumber
    }

    /// The reason.
    package var description: String { reason }

    /// Whether the system refused this user: ``Code/permissionDenied``.
    package var isRefusal: Bool { code == .permissionDenied }

    /// Whether the file is not there (`ENOENT`).
    package var isMissing: Bool { errorNumber == ENOENT }

    /// A failure from a system error number: `EACCES`, `EPERM` and `EROFS` are refusals
    /// (``Code/permissionDenied``), `EBUSY` is ``Code/busy``, anything else `code`.
    /// - Parameters:
    ///   - error: `errno`.
    ///   - what: What failed, said before the system's reason (`cannot open /dev/ttyUSB0`); `nil`
    ///     for the system's reason alone.
    ///   - code: The code of any other error.
    package static func system(_ error: Int32, _ what: String? = nil, otherwise code: Code = .sourceUnavailable) -> PortFailure {
        let kind: Code =
            switch error {
            case EACCES, EPERM, EROFS: .permissionDenied
            case EBUSY: .busy
            default: code
            }
        let words = String(cString: strerror(error))
        return PortFailure(code: kind, reason: what.map { "\($0): \(words)" } ?? words, errorNumber: error)
    }
}
