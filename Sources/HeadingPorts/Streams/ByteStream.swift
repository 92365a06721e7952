// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One open transport of a feed (a serial line, a TCP connection, a UDP socket, standard input),
/// read by one thread: the family DESIGN.md calls "byte streams, once". Every implementation
/// waits in `poll(2)` for at most the time given, so a stop is seen within it.
package protocol ByteStream: AnyObject {
    /// Waits at most `milliseconds` for bytes and reads what has come (one `read(2)` or one datagram).
    /// - Parameters:
    ///   - buffer: Where the bytes go.
    ///   - milliseconds: The longest wait.
    ///   - wake: A descriptor whose readability ends the wait early (``StopSignal/wakeDescriptor``), or -1.
    /// - Returns: What happened (``ByteStreamRead/timedOut`` when woken).
    func read(into buffer: UnsafeMutableRawBufferPointer, waitingAtMost milliseconds: Int32, wakingOn wake: Int32) -> ByteStreamRead

    /// Closes the transport; safe to call more than once.
    func close()

    /// Writes bytes to the device (an Actisense NGT-1's start-up message), all or none; `false`
    /// when the transport cannot be written to.
    func write(_ bytes: [UInt8]) -> Bool
}

extension ByteStream {
    /// A transport that is only read: nothing is written.
    package func write(_ bytes: [UInt8]) -> Bool { false }
}

/// Writes all of `bytes` to a non-blocking descriptor, waiting up to 100 ms for room.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    var written = 0
    var attempts = 0
    while written < bytes.count, attempts < 10 {
        let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
        if count > 0 {
            written += count
        } else if count < 0, errno == EAGAIN || errno == EINTR {
            var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&request, 1, 10)
            attempts += 1
        } else {
            return false
        }
    }
    return written == bytes.count
}

/// What one wait on a ``ByteStream`` brought.
package enum ByteStreamRead {
    /// This many bytes, from one sender (a UDP datagram's address; 0 for a stream).
    case bytes(count: Int, sender: UInt64)
    /// Nothing within the wait.
    case timedOut
    /// The transport ended or broke.
    case ended(ByteStreamFailure)
}

/// Why a transport could not be opened or ended: a code and a reason.
package struct ByteStreamFailure: Error, Sendable {
    /// What kind of failure, as stable values: the source that reads the port reports it as the
    /// heading fault of the same name (HeadingKit's `HeadingFault.Code`).
    package struct Code: RawRepresentable, Sendable, Hashable {
        /// The stable name, the heading fault's.
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// Not there, or not answering: try again later.
        package static let sourceUnavailable = Code(rawValue: "sourceUnavailable")
        /// It was there and went away (unplugged, hung up, bus-off).
        package static let deviceLost = Code(rawValue: "deviceLost")
        /// Refused by the system (`EACCES`, `EPERM`): a permission to grant.
        package static let permissionDenied = Code(rawValue: "permissionDenied")
    }

    /// What kind: ``Code/sourceUnavailable``, ``Code/deviceLost`` or ``Code/permissionDenied``.
    package let code: Code
    /// What happened, naming the device or address.
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

    /// A failure from a system error number: `EACCES` and `EPERM` are refusals
    /// (``ByteStreamFailure/Code/permissionDenied``), anything else `code`.
    package static func system(_ error: Int32, _ what: String, otherwise code: Code = .sourceUnavailable) -> ByteStreamFailure {
        let refused = error == EACCES || error == EPERM
        return ByteStreamFailure(
            code: refused ? .permissionDenied : code, reason: "\(what): \(String(cString: strerror(error)))", errorNumber: error
        )
    }
}

/// Waits for one descriptor to be readable, or `wake`: the shared `poll(2)` of the byte streams.
/// - Returns: `nil` when readable, `.timedOut` after the wait or when woken, or the hang-up's `.ended`.
func waitReadable(_ descriptor: Int32, milliseconds: Int32, wake: Int32, hangUp: () -> ByteStreamFailure) -> ByteStreamRead? {
    var requests = (pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
    let ready = withUnsafeMutableBytes(of: &requests) { poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, max(1, milliseconds)) }
    if ready == 0 || (ready < 0 && errno == EINTR) { return .timedOut }
    if ready < 0 { return .ended(.system(errno, "waiting for data failed")) }
    let events = requests.0.revents
    if events == 0 { return .timedOut }  // woken
    if events & Int16(POLLIN) == 0, events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .ended(hangUp()) }
    return nil
}
