// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

package import NMEA2000

/// Where the NMEA 2000 output writes its frames and hears the bus: a SocketCAN interface
/// (``SocketCANLink``) or a Yacht Devices gateway in RAW mode over TCP (``YachtDevicesRawLink``).
/// Non-blocking, driven by the output's own thread: it polls ``descriptor`` and calls
/// ``write(_:)`` and ``read(_:)`` when the descriptor is ready. Not `Sendable`: one thread owns it.
package protocol CANLink: AnyObject {
    /// The descriptor to poll, for reading and (while frames wait) for writing.
    var descriptor: Int32 { get }
    /// What the link is, for logs: `socketcan://can0`.
    var name: String { get }
    /// Writes one frame without waiting.
    func write(_ frame: CANFrame) -> CANLinkWrite
    /// Reads what waits, without waiting: calls `body` with each frame heard (the kernel's filters,
    /// or the link's, keep to the PGNs the node answers).
    /// - Returns: Why the link ended, or `nil` while it lasts.
    func read(_ body: (CANFrame) -> Void) -> String?
    /// Closes it; the output opens a new one to reconnect.
    func close()
}

/// What a write did.
package enum CANLinkWrite: Equatable {
    /// The frame is on its way.
    case written
    /// No room now (`EAGAIN`, `ENOBUFS`: the interface's queue is full, or the gateway's socket): try again later.
    case full
    /// The link ended (the interface went down, the gateway closed): reconnect.
    case failed(String)
}
