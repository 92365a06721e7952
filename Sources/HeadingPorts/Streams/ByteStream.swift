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
    case ended(PortFailure)
}

/// Waits for one descriptor to be readable, or `wake`: the shared `poll(2)` of the byte streams.
/// - Returns: `nil` when readable, `.timedOut` after the wait or when woken, or the hang-up's `.ended`.
func waitReadable(_ descriptor: Int32, milliseconds: Int32, wake: Int32, hangUp: () -> PortFailure) -> ByteStreamRead? {
    var requests = (pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
    let ready = withUnsafeMutableBytes(of: &requests) { poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, max(1, milliseconds)) }
    if ready == 0 || (ready < 0 && errno == EINTR) { return .timedOut }
    if ready < 0 { return .ended(.system(errno, "waiting for data failed")) }
    let events = requests.0.revents
    if events == 0 { return .timedOut }  // woken
    if events & Int16(POLLIN) == 0, events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .ended(hangUp()) }
    return nil
}
