// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// One encoded frame waiting for room in a byte-stream link (a gateway's TCP socket, an NGT-1's
/// serial line): written as far as the descriptor takes it, the rest kept for the next write. At
/// most one frame waits: a link with something left is full.
struct PendingBytes {
    private var bytes: [UInt8] = []
    /// Whether the descriptor is a socket (written with `MSG_NOSIGNAL`: a closed peer is an
    /// error, not a SIGPIPE).
    let isSocket: Bool

    /// Nothing waiting.
    /// - Parameter isSocket: Whether the descriptor will be a socket.
    init(isSocket: Bool) { self.isSocket = isSocket }

    /// Writes `frame`'s bytes after what waits, if what waits has gone.
    /// - Parameters:
    ///   - frame: The frame's bytes, made only when there is room.
    ///   - descriptor: Where to write.
    ///   - what: The link, for an error.
    mutating func write(_ frame: () -> [UInt8], to descriptor: Int32, what: String) -> CANLinkWrite {
        guard descriptor >= 0 else { return .failed("\(what): closed") }
        if !bytes.isEmpty {
            if let failure = flush(descriptor, what) { return .failed(failure) }
            if !bytes.isEmpty { return .full }
        }
        bytes = frame()
        if let failure = flush(descriptor, what) { return .failed(failure) }
        return .written
    }

    private mutating func flush(_ descriptor: Int32, _ what: String) -> String? {
        let written = bytes.withUnsafeBytes { raw in
            isSocket ? send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) : Glibc.write(descriptor, raw.baseAddress, raw.count)
        }
        if written > 0 {
            bytes.removeFirst(written)
            return nil
        }
        let error = errno
        if written == 0 || error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return nil }
        return "\(what): \(String(cString: strerror(error)))"
    }
}
