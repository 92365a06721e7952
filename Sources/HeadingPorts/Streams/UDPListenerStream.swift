// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A UDP socket listening for NMEA 0183 datagrams: on every address, on one local address, or in a
/// multicast group (joined on every interface). Broadcasts to the port arrive too. Each datagram
/// comes with its sender, so that lines from two senders are never joined.
///
/// `SO_REUSEADDR` lets headingd listen beside another program on the same port (OpenCPN, Signal K
/// server), as UDP gateways' users expect.
package final class UDPListenerStream: ByteStream {
    private var descriptor: Int32 = -1
    private let name: String

    /// Opens the socket.
    /// - Parameters:
    ///   - address: A local IPv4 address or a multicast group; `nil` for every address.
    ///   - port: The UDP port.
    /// - Throws: ``PortFailure`` naming the address and why (a port in use, an address not on
    ///   this machine, a port below 1024 without the privilege).
    package init(address: String?, port: UInt16) throws(PortFailure) {
        name = "udp://\(address ?? ""):\(port)"
        var group = in_addr()
        var local = in_addr(s_addr: INADDR_ANY.bigEndian)
        var isMulticast = false
        if let address {
            guard inet_pton(AF_INET, address, &group) == 1 else {
                throw PortFailure(code: .sourceUnavailable, reason: "\(name): '\(address)' is not an IPv4 address")
            }
            let first = UInt32(bigEndian: group.s_addr) >> 24
            isMulticast = (224...239).contains(first)
            if !isMulticast { local = group }
        }
        let socketDescriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketDescriptor >= 0 else { throw .system(errno, "cannot make a socket for \(name)") }
        var yes: Int32 = 1
        setsockopt(socketDescriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        socketAddress.sin_addr = isMulticast ? group : local
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let error = errno
            Glibc.close(socketDescriptor)
            throw .system(error, "cannot listen on \(name)")
        }
        if isMulticast {
            var membership = ip_mreq(imr_multiaddr: group, imr_interface: in_addr(s_addr: INADDR_ANY.bigEndian))
            guard setsockopt(socketDescriptor, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &membership, socklen_t(MemoryLayout<ip_mreq>.size)) == 0 else {
                let error = errno
                Glibc.close(socketDescriptor)
                throw .system(error, "cannot join the multicast group of \(name)")
            }
        }
        descriptor = socketDescriptor
    }

    deinit { close() }

    package func read(into buffer: UnsafeMutableRawBufferPointer, waitingAtMost milliseconds: Int32, wakingOn wake: Int32) -> ByteStreamRead {
        let broken = { PortFailure(code: .sourceUnavailable, reason: "\(self.name): the socket failed") }
        if let result = waitReadable(descriptor, milliseconds: milliseconds, wake: wake, hangUp: broken) { return result }
        var sender = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &sender) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, buffer.baseAddress, buffer.count, 0, $0, &length) }
        }
        if count >= 0 {
            // The sender's address and port, one number: lines are assembled per sender.
            let key = UInt64(UInt32(bigEndian: sender.sin_addr.s_addr)) << 16 | UInt64(UInt16(bigEndian: sender.sin_port))
            return .bytes(count: count, sender: key)
        }
        let error = errno
        if error == EAGAIN || error == EINTR || error == ECONNREFUSED { return .timedOut }
        return .ended(.system(error, "\(name): receiving failed"))
    }

    package func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }
}
