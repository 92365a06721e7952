// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// This process's own node on one NMEA 2000 bus (headingd's NMEA 2000 output), shared by the node
/// and the sources that read the same bus, so that a source never takes the node's frames for
/// another device's: Linux shows a socket's frames to the host's other sockets, and a gateway
/// echoes them. A source on another bus is given another object (or none), and a device there at
/// the node's address is a device.
///
/// The node writes its address and NAME as it claims; a source's reader reads them lock-free per
/// message.
package final class NMEA2000LocalNode: Sendable {
    /// The node's address, or 0x100 for none.
    private let address = Atomic<UInt16>(0x100)
    /// The node's NAME, or 0 for none.
    private let name = Atomic<UInt64>(0)

    /// A bus with no node of this process on it yet.
    package init() {}

    /// The node holds (or claims) `address` with `name`.
    package func set(address: UInt8, name: UInt64) {
        self.name.store(name, ordering: .relaxed)
        self.address.store(UInt16(address), ordering: .releasing)
    }

    /// The node left the bus.
    package func clear() {
        address.store(0x100, ordering: .releasing)
    }

    /// Whether a message from `source` is the node's own: from its address, and from no device
    /// known there by another NAME (a device that claimed the address after the node lost it).
    /// - Parameters:
    ///   - source: The message's source address.
    ///   - knownName: The NAME heard from that address on this bus, if any.
    package func isOwn(_ source: UInt8, knownName: UInt64?) -> Bool {
        guard address.load(ordering: .acquiring) == UInt16(source) else { return false }
        guard let knownName else { return true }
        return knownName == name.load(ordering: .relaxed)
    }
}
