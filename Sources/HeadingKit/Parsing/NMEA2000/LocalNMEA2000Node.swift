// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// The NMEA 2000 node this process is on the bus (headingd's NMEA 2000 output), so that a source
/// reading the same bus never takes the node's own frames for another device's: Linux shows a
/// socket's frames to the host's other sockets, and a gateway echoes them. Its address and NAME,
/// read lock-free per message.
package enum LocalNMEA2000Node {
    /// The node's address, or 0x100 for none.
    private static let address = Atomic<UInt16>(0x100)
    /// The node's NAME, or 0 for none.
    private static let name = Atomic<UInt64>(0)

    /// The node holds (or claims) `address` with `name`.
    package static func set(address: UInt8, name: UInt64) {
        self.name.store(name, ordering: .relaxed)
        self.address.store(UInt16(address), ordering: .releasing)
    }

    /// The node left the bus.
    package static func clear() {
        address.store(0x100, ordering: .releasing)
    }

    /// Whether a message from `source` is the node's own: from its address, and from no device
    /// known by another NAME there (another bus may have a device at that address).
    /// - Parameters:
    ///   - source: The message's source address.
    ///   - knownName: The NAME heard from that address on this bus, if any.
    package static func isOwn(_ source: UInt8, knownName: UInt64?) -> Bool {
        guard address.load(ordering: .acquiring) == UInt16(source) else { return false }
        guard let knownName else { return true }
        return knownName == name.load(ordering: .relaxed)
    }
}
