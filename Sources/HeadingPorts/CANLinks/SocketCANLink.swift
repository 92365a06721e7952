// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
#if os(Linux)
import CSocketCAN
#endif
package import NMEA2000

/// The NMEA 2000 output's link on a SocketCAN interface (`can0`, `vcan0`): a raw CAN socket of
/// its own, non-blocking. It hears only ISO requests (59904) and address claims (60928), filtered
/// by the kernel, and the controller's bus-off. Its own frames never come back to it (Linux's
/// `CAN_RAW_RECV_OWN_MSGS` is off), though every other socket on the host — a `socketcan://`
/// source of the same interface, candump — sees them.
///
/// A full transmit queue (`ENOBUFS`, `EAGAIN`: no other node acknowledges, or a bus busier than
/// `txqueuelen` frames) is ``CANLinkWrite/full``: the output waits and tries again.
package final class SocketCANLink: CANLink {
    package private(set) var descriptor: Int32 = -1
    package let interface: String
    package var name: String { "socketcan://\(interface)" }

    /// Opens a socket on `interface` and binds it.
    /// - Throws: ``PortFailure`` with the system's reason: no such interface, down, no CAN in this kernel.
    package init(interface: String) throws(PortFailure) {
        self.interface = interface
        #if os(Linux)
        // ISO requests and address claims, to anyone: the destination byte is out of the mask.
        let filters = [NMEA2000PGN.isoRequest, NMEA2000PGN.addressClaim].map { pgn in
            (identifier: pgn << 8 | CAN_EFF_FLAG, mask: UInt32(0x3FF00) << 8 | CAN_EFF_FLAG | CAN_RTR_FLAG)
        }
        descriptor = try SocketCANStream.openSocket(interface: interface, filters: filters, errors: UInt32(CAN_ERR_BUSOFF))
        #else
        throw PortFailure(code: .sourceUnavailable, reason: "SocketCAN is Linux's")
        #endif
    }

    deinit { close() }

    package func write(_ frame: CANFrame) -> CANLinkWrite {
        #if os(Linux)
        guard descriptor >= 0 else { return .failed("closed") }
        var raw = can_frame()
        raw.can_id = frame.identifier.rawValue & CAN_EFF_MASK | CAN_EFF_FLAG
        raw.len = UInt8(frame.count)
        var data = frame.data.littleEndian
        withUnsafeMutableBytes(of: &raw.data) { target in withUnsafeBytes(of: &data) { target.copyMemory(from: $0) } }
        let written = Glibc.write(descriptor, &raw, MemoryLayout<can_frame>.size)
        if written == MemoryLayout<can_frame>.size { return .written }
        let error = errno
        if written >= 0 || error == EAGAIN || error == EWOULDBLOCK || error == ENOBUFS || error == EINTR { return .full }
        return .failed(failure(error))
        #else
        return .failed("SocketCAN is Linux's")
        #endif
    }

    package func read(_ body: (CANFrame) -> Void) -> String? {
        #if os(Linux)
        var raw = can_frame()
        // Bounded: what waits now, at most 256 frames a call.
        for _ in 0..<256 {
            let size = recv(descriptor, &raw, MemoryLayout<can_frame>.size, Int32(MSG_DONTWAIT))
            if size < 0 {
                let error = errno
                if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return nil }
                return failure(error)
            }
            if size == 0 { return "CAN interface \(interface) closed" }
            guard size >= MemoryLayout<can_frame>.size - 8 else { continue }
            if raw.can_id & CAN_ERR_FLAG != 0 {
                if raw.can_id & CAN_ERR_BUSOFF != 0 { return "the CAN controller of \(interface) is bus-off" }
                continue
            }
            guard raw.can_id & CAN_EFF_FLAG != 0, raw.can_id & CAN_RTR_FLAG == 0 else { continue }
            var data: UInt64 = 0
            withUnsafeMutableBytes(of: &data) { target in withUnsafeBytes(of: &raw.data) { target.copyMemory(from: $0) } }
            body(CANFrame(identifier: CANIdentifier(raw.can_id & CAN_EFF_MASK), count: Int(min(raw.len, 8)), data: UInt64(littleEndian: data)))
        }
        return nil
        #else
        return "SocketCAN is Linux's"
        #endif
    }

    private func failure(_ error: Int32) -> String {
        "CAN interface \(interface): \(String(cString: strerror(error)))"
    }

    package func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }
}
