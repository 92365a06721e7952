// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

package import HeadingPorts
import NMEA2000

/// Finds a serial line's rate: listens at each rate in turn until what it hears is recognised —
/// an NMEA 0183 sentence with a right checksum, or an Actisense NGT-1's message with a right
/// checksum. `baud=auto` and `headingd scan` both use it.
package enum SerialBaudProbe {
    /// What a rate was recognised by.
    package enum Recognised: String, Sendable, Hashable {
        /// An NMEA 0183 sentence with a right checksum.
        case nmea0183
        /// An Actisense NGT-1 (BST) message with a right checksum: NMEA 2000 through the gateway.
        case actisense
    }

    /// Listens at each rate for at most `slot`, in order, and stays at the first whose bytes are recognised.
    /// - Parameters:
    ///   - line: The open serial line; left at the rate found.
    ///   - rates: The rates to try, in order.
    ///   - slot: How long each rate is listened to.
    ///   - accepting: What counts.
    ///   - signal: Ends the probe early (then `nil`).
    ///   - trying: Told each rate as it is tried (progress).
    /// - Returns: The rate and what was recognised, or `nil` when nothing was at any rate.
    /// - Throws: ``PortFailure`` when the line ends or cannot be set to a rate.
    package static func probe(
        _ line: SerialLineStream, rates: [Int] = NMEAStreamEndpoint.baudRates, slot: Duration,
        accepting: Set<Recognised>, signal: StopSignal, trying: (Int) -> Void = { _ in }
    ) throws(PortFailure) -> (rate: Int, recognised: Recognised)? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
        defer { buffer.deallocate() }
        for rate in rates {
            try line.setSpeed(rate)
            trying(rate)
            var assembler = LineAssembler(maximumLineLength: NMEASentence.maximumLength)
            var actisense = ActisenseFrameSplitter()
            let deadline = ContinuousClock.now.advanced(by: slot)
            var found: Recognised?
            while found == nil, !signal.isStopped {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { break }
                switch line.read(into: buffer, waitingAtMost: min(left, .milliseconds(250)).pollMilliseconds, wakingOn: signal.wakeDescriptor) {
                case .bytes(let count, _):
                    let bytes = UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
                    if accepting.contains(.nmea0183) {
                        assembler.append(bytes) { piece in
                            if case .line(let text) = piece, let sentence = try? NMEASentence(text), sentence.hasChecksum { found = .nmea0183 }
                        }
                    }
                    if accepting.contains(.actisense) {
                        actisense.append(bytes) { piece in
                            switch piece {
                            case .message, .other: found = found ?? .actisense
                            case .bad: break
                            }
                        }
                    }
                case .timedOut:
                    continue
                case .ended(let failure):
                    throw failure
                }
            }
            if let found { return (rate, found) }
            if signal.isStopped { return nil }
        }
        return nil
    }
}
