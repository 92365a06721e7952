// headingd — HeadingKitTesting's port reservations
// SPDX-License-Identifier: Apache-2.0

import HeadingKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The ports every test hands its servers: each different, held for the process, and free for
/// the server the test starts (which binds it with `SO_REUSEADDR` and listens).
struct PortReservationTests {
    @Test func eachPortIsDifferentHeldAndListenableByItsServer() throws {
        let ports = (0..<20).map { _ in PortReservation.reserve() }
        #expect(Set(ports).count == ports.count, "\(ports)")
        #expect(ports.allSatisfy(PortReservation.holds))
        // The server the test starts binds it and listens, beside the reservation.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = ports[0].bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(bound == 0 && listen(listener, 4) == 0, "\(String(cString: strerror(errno)))")
        // A port nobody reserved is not said to be held.
        #expect(!PortReservation.holds(1))
    }
}
