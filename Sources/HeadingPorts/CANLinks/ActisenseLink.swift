// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

package import NMEA2000

/// The NMEA 2000 output's link through an Actisense NGT-1 on a serial line, data only: each frame
/// the node gives (single-frame PGNs: 127250, 127251, 127257, 127258) goes to the NGT-1 as a
/// message to send (BST command 0x94), which it puts on the bus under its **own** address and
/// NAME — so headingd claims nothing there and answers nothing (a plotter lists the heading under
/// the Actisense gateway), and the NGT-1 sends only the PGNs enabled in its transmit list
/// (Actisense's NMEA Reader: Transmit PGN list). What the NGT-1 sends back is read and dropped.
///
/// Bounded: at most one encoded message waits for room in the line.
package final class ActisenseLink: CANLink {
    private let line: SerialLineStream
    package let path: String
    package var descriptor: Int32 { line.fileDescriptor }
    package var name: String { "serial://\(path)?format=actisense" }
    private var pending = PendingBytes(isSocket: false)

    /// Opens the NGT-1's line at `baud`.
    /// - Throws: ``PortFailure`` naming the device and why (missing, not permitted: the dialout group).
    package init(path: String, baud: Int) throws(PortFailure) {
        self.path = path
        line = try SerialLineStream(path: path, baud: baud, writable: true)
    }

    package func write(_ frame: CANFrame) -> CANLinkWrite {
        pending.write({
            ActisenseFrameSplitter.encodeSend(
                priority: frame.identifier.priority, pgn: frame.identifier.pgn, destination: frame.identifier.destination, payload: frame.bytes
            )
        }, to: descriptor, what: path)
    }

    package func read(_ body: (CANFrame) -> Void) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let result = buffer.withUnsafeMutableBytes { line.read(into: $0, waitingAtMost: 0, wakingOn: -1) }
            switch result {
            case .bytes: continue
            case .timedOut: return nil
            case .ended(let failure): return failure.reason
            }
        }
        return nil
    }

    package func close() { line.close() }
}
