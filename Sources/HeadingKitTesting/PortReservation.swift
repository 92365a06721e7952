// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Ports a test can hand to a server it starts (headingd, gpsd, a test's own listener) that no
/// other process can take meanwhile, for TCP and UDP.
///
/// A port is chosen by the kernel (a bind to port 0) and stays bound, with `SO_REUSEADDR`, for the
/// rest of the test process: by a TCP socket that never listens and a UDP socket connected to the
/// discard port. Linux lets another socket bind the same port only when both sockets set
/// `SO_REUSEADDR` and neither listens, which every server the tests start does (NIO and
/// Hummingbird's listeners, gpsd, headingd's UDP source, the tests' own): they bind it, and
/// nothing else can, not even an outgoing connection's ephemeral port (the kernel never picks a
/// port that a bind holds) or another process's bind to port 0. The connected UDP socket receives
/// only its peer's datagrams, so every datagram sent to the port reaches the server. A port that
/// nothing listens on refuses connections, as a free one does.
///
/// Before this, ports were counted up from 30,000 and checked by connecting: a port could be taken
/// between the check and the server's bind, and 32,768 and up are the kernel's ephemeral ports,
/// which any outgoing connection on the machine may hold.
public enum PortReservation {
    /// Reserves a port (TCP and UDP, every address) for the rest of this process.
    /// - Returns: The port.
    public static func reserve() -> UInt16 {
        for _ in 0..<100 {
            if let port = tryReserve() { return port }
        }
        fatalError("PortReservation: no port could be reserved for TCP and UDP in 100 tries: \(String(cString: strerror(errno)))")
    }

    /// The descriptors holding the reservations, open until the process ends.
    private static let held = Mutex<[Int32]>([])

    /// Whether a held descriptor is still a TCP socket bound to `port` (for a failure's message:
    /// a stray `close` elsewhere in the process would free the port for anyone).
    public static func holds(_ port: UInt16) -> Bool {
        held.withLock { descriptors in
            descriptors.contains { descriptor in
                var address = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                var type: Int32 = 0
                var typeLength = socklen_t(MemoryLayout<Int32>.size)
                let named = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
                return named == 0 && getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &typeLength) == 0
                    && type == Int32(SOCK_STREAM.rawValue) && UInt16(bigEndian: address.sin_port) == port
            }
        }
    }

    private static func tryReserve() -> UInt16? {
        let stream = boundSocket(type: SOCK_STREAM, port: 0)
        guard stream >= 0 else { return nil }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(stream, $0, &length) }
        }
        let port = UInt16(bigEndian: address.sin_port)
        guard named == 0, port != 0 else {
            close(stream)
            return nil
        }
        let datagram = boundSocket(type: SOCK_DGRAM, port: port)
        guard datagram >= 0 else {
            close(stream)  // the UDP port is taken: another one
            return nil
        }
        var discard = sockaddr_in()
        discard.sin_family = sa_family_t(AF_INET)
        discard.sin_port = UInt16(9).bigEndian
        discard.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &discard) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(datagram, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(stream)
            close(datagram)
            return nil
        }
        held.withLock { $0 += [stream, datagram] }
        return port
    }

    /// A close-on-exec socket with `SO_REUSEADDR`, bound to 0.0.0.0:`port`; -1 if it cannot be.
    private static func boundSocket(type: __socket_type, port: UInt16) -> Int32 {
        let descriptor = socket(AF_INET, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }
}
