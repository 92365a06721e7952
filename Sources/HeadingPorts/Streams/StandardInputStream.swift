// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard input, read without blocking a wait longer than asked. Its end is
/// final: nothing reopens standard input.
package final class StandardInputStream: ByteStream {
    private var isOpen = true

    package init() {}

    package func read(into buffer: UnsafeMutableRawBufferPointer, waitingAtMost milliseconds: Int32, wakingOn wake: Int32) -> ByteStreamRead {
        guard isOpen else { return .ended(Self.end) }
        if let result = waitReadable(0, milliseconds: milliseconds, wake: wake, hangUp: { Self.end }) {
            if case .ended = result { isOpen = false }
            return result
        }
        let count = Glibc.read(0, buffer.baseAddress, buffer.count)
        if count > 0 { return .bytes(count: count, sender: 0) }
        if count < 0, errno == EAGAIN || errno == EINTR { return .timedOut }
        isOpen = false
        return .ended(count == 0 ? Self.end : PortFailure(code: .sourceUnavailable, reason: "standard input: \(String(cString: strerror(errno)))", isFinal: true))
    }

    private static let end = PortFailure(code: .sourceUnavailable, reason: "standard input ended", isFinal: true)

    package func close() { isOpen = false }
}
