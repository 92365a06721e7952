// headingd
// SPDX-License-Identifier: Apache-2.0

/// Why an output could not be opened: the one error of opening an output. At start, before the
/// pipeline runs, headingd says so, naming the output and the address, and exits
/// ``ExitStatus/outputUnavailable``. (The NMEA 2000 node's link is a port: its failure is the
/// ports' ``PortFailure``, said once per reason on the node's thread and tried again.)
///
/// A struct with a ``Code`` of static values (STYLE.md), so that a new way to fail breaks no caller;
/// its ``description`` is the message people read, which names the fix.
struct OutputOpenError: Error, Sendable, CustomStringConvertible {
    /// What could not be done.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        var description: String { name }

        /// A listener's address cannot be listened on: in use, not this machine's, an unknown host.
        static let cannotListen = Code(name: "cannotListen")
        /// A datagram output's targets cannot be sent to: an unknown host, no route.
        static let cannotSend = Code(name: "cannotSend")
        /// What an output keeps or reads cannot be opened (a journal, the history, a password file),
        /// or its broker's settings are incomplete.
        static let cannotOpen = Code(name: "cannotOpen")
    }

    /// What could not be done.
    let code: Code
    /// The output, as messages name it (`Signal K output`); `nil` when ``reason`` is the whole message.
    let output: String?
    /// Why, after the output's name.
    let reason: String
    /// Where the error was made.
    let file: String
    /// The line where the error was made.
    let line: Int

    var description: String { output.map { "\($0): \(reason)" } ?? reason }

    /// A listener that cannot listen on `address`.
    static func cannotListen(
        _ output: String, on address: ListenAddress, _ reason: String, file: String = #fileID, line: Int = #line
    ) -> Self {
        Self(code: .cannotListen, output: output, reason: "cannot listen on \(address): \(reason)", file: file, line: line)
    }

    /// A datagram output that cannot send to `target`.
    static func cannotSend(_ output: String, to target: String, _ reason: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(code: .cannotSend, output: output, reason: "cannot send to \(target): \(reason)", file: file, line: line)
    }

    /// An output that cannot open what it keeps or reads, or whose settings are incomplete; `reason` says which.
    static func cannotOpen(_ output: String, _ reason: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(code: .cannotOpen, output: output, reason: reason, file: file, line: line)
    }
}
