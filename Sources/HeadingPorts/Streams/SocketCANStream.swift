// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CSocketCAN
#endif
package import NMEA2000

/// A SocketCAN interface (`can0`, a PiCAN-M or Waveshare HAT, a CANable, `vcan0`), read through a
/// raw CAN socket, listen-only: it binds no address and sends nothing on the bus.
///
/// The kernel filters the frames (only the PGNs HeadingKit reads, ``NMEA2000PGN/read``) and stamps
/// each with its receive time (`SO_TIMESTAMP`). A read hands over whole records of
/// ``recordSize`` bytes (``SocketCANRecords``), as many frames as wait, up to 64 at once. The
/// interface down (`ENETDOWN`) or the controller bus-off (an error frame) ends the stream as
/// ``PortFailure/Code/deviceLost``; it is opened again once the interface is up.
package final class SocketCANStream: ByteStream {
    /// The size of one record in a read: identifier (4, with Linux's flags), length (1), 3 bytes
    /// of padding, 8 data bytes, and the receive time in microseconds since 1970 (8).
    package static let recordSize = 24
    private var descriptor: Int32 = -1
    private let interface: String
    /// The kernel's count of frames dropped for want of room (`SO_RXQ_OVFL`), as last seen.
    private var droppedFrames: UInt32 = 0
    /// `SO_RXQ_OVFL`: the kernel counts the frames it dropped, in each message's control data.
    private static let receiveQueueOverflow: Int32 = 40
    /// The identifier of a record that says how many frames the kernel dropped (in its data).
    package static let dropRecord: UInt32 = 0xFFFF_FFFF

    #if os(Linux)
    /// Binds a raw CAN socket to the interface at `index` (`sockaddr_can`).
    /// - Returns: `bind(2)`'s result: 0, or -1 with `errno`.
    private static func bind(_ descriptor: Int32, toInterface index: Int32) -> Int32 {
        var address = sockaddr_can()
        address.can_family = sa_family_t(AF_CAN)
        address.can_ifindex = index
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_can>.size)) }
        }
    }
    #endif

    /// Why no CAN socket could be made (`EAFNOSUPPORT`): a kernel without CAN, or a service not
    /// allowed the address family (systemd's `RestrictAddressFamilies=` gives the same error).
    package static func noCANSockets(_ error: Int32) -> String {
        "no CAN socket (socket(AF_CAN): \(String(cString: strerror(error)))): this kernel has no CAN (load the can and can-raw modules), "
            + "or the service may not open CAN sockets (install the nmea2000-socketcan.conf drop-in: RestrictAddressFamilies=AF_CAN)"
    }

    package init(interface: String) throws(PortFailure) {
        self.interface = interface
        #if os(Linux)
        // Only the PGNs read: one filter each, extended frames only. An addressed (PDU1) PGN's
        // destination byte is left out of the mask.
        let filters = NMEA2000PGN.read.map { pgn -> (identifier: UInt32, mask: UInt32) in
            let isAddressed = (pgn >> 8) & 0xFF < 240
            let pgnMask: UInt32 = isAddressed ? 0x3FF00 : 0x3FFFF
            return (pgn << 8 | CAN_EFF_FLAG, pgnMask << 8 | CAN_EFF_FLAG | CAN_RTR_FLAG)
        }
        descriptor = try Self.openSocket(interface: interface, filters: filters, errors: UInt32(CAN_ERR_BUSOFF | CAN_ERR_RESTARTED)) { socket in
            var yes: Int32 = 1
            // Room for a burst (a bus at 250 kbit/s brings up to about 1800 frames a second): as much
            // as the system allows an unprivileged socket; what is still dropped is counted and said.
            var room: Int32 = 1 << 20
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &room, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(socket, SOL_SOCKET, Self.receiveQueueOverflow, &yes, socklen_t(MemoryLayout<Int32>.size))
            return setsockopt(socket, SOL_SOCKET, SO_TIMESTAMP, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0
        }
        #else
        throw PortFailure(code: .sourceUnavailable, reason: "SocketCAN is Linux's")
        #endif
    }

    #if os(Linux)
    /// Opens a raw CAN socket on `interface`, non-blocking, and binds it: SocketCAN's one opening,
    /// for the source (listen-only) and the NMEA 2000 node's link alike.
    /// - Parameters:
    ///   - interface: The interface's name (`can0`).
    ///   - filters: The frames the kernel passes: each an identifier and a mask (Linux's `can_filter`).
    ///   - errors: The error frames it passes (`CAN_ERR_BUSOFF` …).
    ///   - configure: Sets further options on the socket before it is bound; `false` (with
    ///     `errno`) when one cannot be set.
    /// - Returns: The socket's descriptor, which the caller closes.
    /// - Throws: ``PortFailure``: no CAN in this kernel or none allowed the service, no such
    ///   interface, the interface down (``PortFailure/Code/deviceLost``), or the system's reason.
    package static func openSocket(
        interface: String, filters: [(identifier: UInt32, mask: UInt32)], errors: UInt32, configure: (Int32) -> Bool = { _ in true }
    ) throws(PortFailure) -> Int32 {
        let created = socket(PF_CAN, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), CAN_RAW)
        guard created >= 0 else {
            let error = errno
            if error == EAFNOSUPPORT {
                throw PortFailure(code: .sourceUnavailable, reason: noCANSockets(error), errorNumber: error)
            }
            throw .system(error, "cannot make a CAN socket")
        }
        func fail(_ failure: PortFailure) -> PortFailure {
            Glibc.close(created)
            return failure
        }
        let index = csocketcan_interface_index(created, interface)
        guard index > 0 else { throw fail(.system(errno, "no CAN interface \(interface)", otherwise: .deviceLost)) }
        guard csocketcan_interface_is_up(created, interface) == 1 else {
            throw fail(PortFailure(code: .deviceLost, reason: "CAN interface \(interface) is down (ip link set \(interface) up)"))
        }
        var kernelFilters = filters.map { can_filter(can_id: $0.identifier, can_mask: $0.mask) }
        var errorMask = can_err_mask_t(errors)
        let size = socklen_t(MemoryLayout<can_filter>.stride * kernelFilters.count)
        guard setsockopt(created, csocketcan_raw_level(), Int32(CAN_RAW_FILTER), &kernelFilters, size) == 0,
            setsockopt(created, csocketcan_raw_level(), Int32(CAN_RAW_ERR_FILTER), &errorMask, socklen_t(MemoryLayout<can_err_mask_t>.size)) == 0,
            configure(created)
        else { throw fail(.system(errno, "cannot set the CAN socket's filters")) }
        guard bind(created, toInterface: index) == 0 else {
            throw fail(.system(errno, "cannot bind to CAN interface \(interface)", otherwise: .deviceLost))
        }
        return created
    }
    #endif

    deinit { close() }

    package func read(into buffer: UnsafeMutableRawBufferPointer, waitingAtMost milliseconds: Int32, wakingOn wake: Int32) -> ByteStreamRead {
        #if os(Linux)
        guard descriptor >= 0 else { return .ended(PortFailure(code: .deviceLost, reason: "CAN interface \(interface): closed")) }
        if let result = waitReadable(descriptor, milliseconds: milliseconds, wake: wake, hangUp: { self.failure(self.pendingError()) }) {
            return result
        }
        var count = 0
        var frame = can_frame()
        var control = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while count + Self.recordSize <= buffer.count, count < 64 * Self.recordSize {
            let received = withUnsafeMutableBytes(of: &frame) { frameBytes in
                withUnsafeMutableBytes(of: &control) { controlBytes in
                    var vector = iovec(iov_base: frameBytes.baseAddress, iov_len: frameBytes.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var header = msghdr()
                        header.msg_iov = vectorPointer
                        header.msg_iovlen = 1
                        header.msg_control = controlBytes.baseAddress
                        header.msg_controllen = controlBytes.count
                        let size = recvmsg(descriptor, &header, Int32(MSG_DONTWAIT))
                        return (size, Self.controlData(of: &header))
                    }
                }
            }
            if received.0 < 0 {
                let error = errno
                if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { break }
                return .ended(failure(error))
            }
            if let dropped = received.1.dropped, dropped != droppedFrames {
                // The kernel dropped frames since the last one: a record saying how many, before this frame.
                let record = buffer.baseAddress!.advanced(by: count)
                record.storeBytes(of: Self.dropRecord, toByteOffset: 0, as: UInt32.self)
                record.storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)
                record.storeBytes(of: UInt64(dropped &- droppedFrames).littleEndian, toByteOffset: 8, as: UInt64.self)
                record.storeBytes(of: Int64(0), toByteOffset: 16, as: Int64.self)
                count += Self.recordSize
                droppedFrames = dropped
                guard count + Self.recordSize <= buffer.count else { break }
            }
            guard received.0 >= MemoryLayout<can_frame>.size - 8 + Int(min(frame.len, 8)) else { continue }
            if frame.can_id & CAN_ERR_FLAG != 0 {
                if frame.can_id & CAN_ERR_BUSOFF != 0 {
                    return .ended(PortFailure(code: .deviceLost, reason: "the CAN controller of \(interface) is bus-off"))
                }
                continue
            }
            guard frame.can_id & CAN_EFF_FLAG != 0, frame.can_id & CAN_RTR_FLAG == 0 else { continue }
            let record = buffer.baseAddress!.advanced(by: count)
            record.storeBytes(of: frame.can_id.littleEndian, toByteOffset: 0, as: UInt32.self)
            record.storeBytes(of: UInt32(min(frame.len, 8)).littleEndian, toByteOffset: 4, as: UInt32.self)
            withUnsafeBytes(of: &frame.data) { record.advanced(by: 8).copyMemory(from: $0.baseAddress!, byteCount: 8) }
            record.storeBytes(of: received.1.microseconds.littleEndian, toByteOffset: 16, as: Int64.self)
            count += Self.recordSize
        }
        return count == 0 ? .timedOut : .bytes(count: count, sender: 0)
        #else
        return .ended(PortFailure(code: .sourceUnavailable, reason: "SocketCAN is Linux's"))
        #endif
    }

    #if os(Linux)
    /// The control messages' receive time (`SO_TIMESTAMP`, microseconds since 1970; 0 without
    /// one) and the kernel's count of dropped frames (`SO_RXQ_OVFL`).
    private static func controlData(of header: inout msghdr) -> (microseconds: Int64, dropped: UInt32?) {
        var result: (microseconds: Int64, dropped: UInt32?) = (0, nil)
        guard let control = header.msg_control else { return result }
        var offset = 0
        let length = Int(header.msg_controllen)
        let headerSize = MemoryLayout<cmsghdr>.stride
        while offset + headerSize <= length {
            let message = control.advanced(by: offset).assumingMemoryBound(to: cmsghdr.self).pointee
            let size = Int(message.cmsg_len)
            guard size >= headerSize, offset + size <= length else { break }
            let data = UnsafeRawPointer(control).advanced(by: offset + headerSize)
            if message.cmsg_level == SOL_SOCKET, message.cmsg_type == SO_TIMESTAMP, size - headerSize >= MemoryLayout<timeval>.size {
                let time = data.loadUnaligned(as: timeval.self)
                result.microseconds = Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_usec)
            } else if message.cmsg_level == SOL_SOCKET, message.cmsg_type == receiveQueueOverflow, size - headerSize >= 4 {
                result.dropped = data.loadUnaligned(as: UInt32.self)
            }
            offset += (size + 7) & ~7
        }
        return result
    }

    /// The socket's pending error (`SO_ERROR`): why poll said it failed.
    private func pendingError() -> Int32 {
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) == 0, error != 0 else { return ENETDOWN }
        return error
    }
    #endif

    private func failure(_ error: Int32) -> PortFailure {
        if error == ENETDOWN || error == ENODEV || error == ENXIO {
            return PortFailure(
                code: .deviceLost, reason: "CAN interface \(interface) went down (\(String(cString: strerror(error))))", errorNumber: error
            )
        }
        return .system(error, "reading CAN interface \(interface) failed", otherwise: .deviceLost)
    }

    package func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }
}

/// Reads the records a ``SocketCANStream`` hands over.
package enum SocketCANRecords {
    /// Calls `body` with each whole record's frame and receive time (seconds since 1970; 0 for none),
    /// and `dropped` with the count of a record saying the kernel dropped frames.
    package static func forEach(
        in bytes: UnsafeBufferPointer<UInt8>, dropped: (UInt64) -> Void, _ body: (CANFrame, Double) -> Void
    ) {
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + SocketCANStream.recordSize <= raw.count {
            let identifier = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let count = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            let data = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            let micros = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: Int64.self))
            guard identifier != SocketCANStream.dropRecord else {
                dropped(data)
                offset += SocketCANStream.recordSize
                continue
            }
            body(CANFrame(identifier: CANIdentifier(identifier), count: count, data: data), Double(micros) / 1_000_000)
            offset += SocketCANStream.recordSize
        }
    }
}
