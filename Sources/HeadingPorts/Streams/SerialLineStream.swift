// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A serial line opened for reading, raw 8N1 through termios at one baud rate.
///
/// A device that cannot be opened for lack of permission (not in the `dialout` group) is a
/// ``PortFailure/Code/permissionDenied`` failure; one that is missing, or goes away while open
/// (a USB adapter pulled: `read(2)` gives `EIO` or end of file, `poll(2)` a hang-up), is
/// ``PortFailure/Code/deviceLost``.
package final class SerialLineStream: ByteStream {
    private var descriptor: Int32
    private let path: String

    /// Opens `path` and sets it raw, 8N1, receiver on, modem lines ignored, at `baud`.
    /// - Throws: ``PortFailure`` naming the device and why.
    /// - Parameter writable: Whether the line is opened for writing too (an NGT-1 is sent its start-up message).
    package init(path: String, baud: Int, writable: Bool = false) throws(PortFailure) {
        self.path = path
        descriptor = try Self.openLine(path, baud: baud, flags: writable ? O_RDWR : O_RDONLY)
    }

    /// Opens `path` without waiting and sets it raw, 8N1, receiver on, modem lines ignored, at
    /// `baud`: the one opener of a serial line, for this stream and for a writer that hands the
    /// descriptor to its own event loop (the NMEA 0183 serial output).
    /// - Parameters:
    ///   - path: The device.
    ///   - baud: One of ``NMEAStreamEndpoint/baudRates``.
    ///   - flags: `O_RDONLY`, `O_WRONLY` or `O_RDWR` (`O_NOCTTY`, `O_NONBLOCK` and `O_CLOEXEC` are added).
    /// - Returns: The open descriptor: the caller closes it.
    /// - Throws: ``PortFailure`` naming the device and why.
    package static func openLine(_ path: String, baud: Int, flags: Int32) throws(PortFailure) -> Int32 {
        let descriptor = open(path, flags | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            throw .system(error, "cannot open \(path)", otherwise: error == ENOENT || error == ENODEV || error == ENXIO ? .deviceLost : .sourceUnavailable)
        }
        do throws(PortFailure) {
            try configure(descriptor, path: path, baud: baud)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        return descriptor
    }

    deinit { close() }

    package func write(_ bytes: [UInt8]) -> Bool { descriptor >= 0 && writeAll(descriptor, bytes) }

    /// The open line's descriptor (non-blocking), for a writer that polls it; -1 once closed.
    package var fileDescriptor: Int32 { descriptor }

    /// Sets the line raw, 8N1, at `baud` (one of ``NMEAStreamEndpoint/baudRates``), and drops
    /// what was received at the old speed.
    package func setSpeed(_ baud: Int) throws(PortFailure) { try Self.configure(descriptor, path: path, baud: baud) }

    private static func configure(_ descriptor: Int32, path: String, baud: Int) throws(PortFailure) {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            throw PortFailure(code: .sourceUnavailable, reason: "\(path) is not a serial line (\(String(cString: strerror(errno))))")
        }
        cfmakeraw(&settings)
        let speed = speed(baud)
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            throw .system(errno, "cannot set \(path) to \(baud) baud")
        }
        tcflush(descriptor, TCIFLUSH)
    }

    private static func speed(_ baud: Int) -> speed_t {
        switch baud {
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115200: speed_t(B115200)
        default: speed_t(B4800)
        }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, waitingAtMost milliseconds: Int32, wakingOn wake: Int32) -> ByteStreamRead {
        let lost = { PortFailure(code: .deviceLost, reason: "\(self.path) went away (hung up)") }
        if let result = waitReadable(descriptor, milliseconds: milliseconds, wake: wake, hangUp: lost) { return result }
        let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
        if count > 0 { return .bytes(count: count, sender: 0) }
        if count == 0 { return .ended(lost()) }
        let error = errno
        if error == EAGAIN || error == EINTR { return .timedOut }
        return .ended(.system(error, "\(path) went away", otherwise: .deviceLost))
    }

    package func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }
}
