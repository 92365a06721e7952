// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// Turns CAN frames into whole NMEA 2000 messages: a single-frame PGN's frame is its message; a
/// fast-packet PGN's series of frames (a first frame with the length and 6 bytes, then up to 31 of
/// 7 bytes each: at most 223 bytes) is joined, sender by sender, PGN by PGN.
///
/// Bounded whatever arrives: at most ``maximumSeries`` series are being joined at once (the oldest
/// is dropped for a new one), a series longer than 223 bytes is refused, and a series with a frame
/// missing or out of order is dropped — never joined to the wrong bytes. Its storage is allocated
/// once, at creation.
public struct FastPacketAssembler: Sendable {
    /// Why frames were dropped.
    public enum Drop: Sendable, Hashable, CustomStringConvertible {
        /// A series whose next frame did not come: it had this many bytes of its length.
        case incomplete(pgn: UInt32, source: UInt8, received: Int, length: Int)
        /// A first frame announcing more than 223 bytes.
        case tooLong(pgn: UInt32, source: UInt8, length: Int)
        /// A frame of a series whose start was not seen.
        case orphan(pgn: UInt32, source: UInt8)

        /// What happened, for a fault's reason.
        public var description: String {
            switch self {
            case .incomplete(let pgn, let source, let received, let length):
                "fast packet PGN \(pgn) from \(source) lost a frame (\(received) of \(length) bytes); dropped"
            case .tooLong(let pgn, let source, let length):
                "fast packet PGN \(pgn) from \(source) announces \(length) bytes, more than 223; dropped"
            case .orphan(let pgn, let source):
                "fast packet PGN \(pgn) from \(source): a frame without its series' start; dropped"
            }
        }
    }

    /// The longest fast-packet message: 6 + 31 × 7 bytes.
    public static let maximumLength = 223
    /// How many series may be joined at once.
    public let maximumSeries: Int

    private struct Series: Sendable {
        var pgn: UInt32 = 0
        var source: UInt8 = 0
        var destination: UInt8 = 255
        var priority: UInt8 = 0
        var counter: UInt8 = 0
        var nextIndex: UInt8 = 0
        var length = 0
        var received = 0
        var age: UInt64 = 0
        var isActive = false
    }

    private var series: [Series]
    private var storage: [UInt8]
    private var clock: UInt64 = 0

    /// Creates an assembler.
    /// - Parameter maximumSeries: How many series may be joined at once. Default 32.
    public init(maximumSeries: Int = 32) {
        self.maximumSeries = max(1, maximumSeries)
        series = Array(repeating: Series(), count: self.maximumSeries)
        storage = Array(repeating: 0, count: self.maximumSeries * Self.maximumLength)
    }

    /// Forgets every series being joined (a transport reopened).
    public mutating func reset() {
        for index in series.indices { series[index].isActive = false }
    }

    /// Takes a frame, and hands over the message it completes, if it completes one.
    /// - Parameters:
    ///   - frame: The frame.
    ///   - deliver: Called with a whole message (payload valid during the call).
    /// - Returns: What was dropped to take it, if anything.
    @discardableResult
    public mutating func accept(_ frame: CANFrame, _ deliver: (NMEA2000Message) -> Void) -> Drop? {
        let identifier = frame.identifier
        let pgn = identifier.pgn
        guard NMEA2000PGN.isFastPacket(pgn) else {
            frame.withUnsafeBytes { payload in
                deliver(
                    NMEA2000Message(
                        priority: identifier.priority, pgn: pgn, source: identifier.source, destination: identifier.destination, payload: payload
                    )
                )
            }
            return nil
        }
        guard frame.count >= 1 else { return nil }
        clock &+= 1
        let source = identifier.source
        let counter = frame[0] >> 5
        let index = frame[0] & 0x1F
        let slot = series.firstIndex { $0.isActive && $0.pgn == pgn && $0.source == source }
        if index == 0 {
            guard frame.count >= 2 else { return nil }
            let length = Int(frame[1])
            var dropped: Drop?
            if let slot { dropped = .incomplete(pgn: pgn, source: source, received: series[slot].received, length: series[slot].length) }
            guard length <= Self.maximumLength else {
                if let slot { series[slot].isActive = false }
                return .tooLong(pgn: pgn, source: source, length: length)
            }
            let chosen = slot ?? freeSlot()
            series[chosen] = Series(
                pgn: pgn, source: source, destination: identifier.destination, priority: identifier.priority, counter: counter,
                nextIndex: 1, length: length, received: 0, age: clock, isActive: true
            )
            append(frame, from: 2, to: chosen)
            if series[chosen].received >= length { complete(chosen, deliver) }
            return dropped
        }
        guard let slot else { return .orphan(pgn: pgn, source: source) }
        guard series[slot].counter == counter, series[slot].nextIndex == index else {
            let lost = series[slot]
            series[slot].isActive = false
            return .incomplete(pgn: pgn, source: source, received: lost.received, length: lost.length)
        }
        series[slot].nextIndex = index &+ 1
        series[slot].age = clock
        append(frame, from: 1, to: slot)
        if series[slot].received >= series[slot].length { complete(slot, deliver) }
        return nil
    }

    /// A free slot, or the one least recently fed.
    private mutating func freeSlot() -> Int {
        if let free = series.firstIndex(where: { !$0.isActive }) { return free }
        var oldest = 0
        for index in series.indices where series[index].age < series[oldest].age { oldest = index }
        return oldest
    }

    private mutating func append(_ frame: CANFrame, from first: Int, to slot: Int) {
        guard first < frame.count else { return }
        let base = slot * Self.maximumLength
        var received = series[slot].received
        for byte in first..<frame.count where received < series[slot].length {
            storage[base + received] = frame[byte]
            received += 1
        }
        series[slot].received = received
    }

    private mutating func complete(_ slot: Int, _ deliver: (NMEA2000Message) -> Void) {
        series[slot].isActive = false
        let done = series[slot]
        storage.withUnsafeBufferPointer { buffer in
            let payload = UnsafeBufferPointer(rebasing: buffer[(slot * Self.maximumLength)..<(slot * Self.maximumLength + done.length)])
            deliver(NMEA2000Message(priority: done.priority, pgn: done.pgn, source: done.source, destination: done.destination, payload: payload))
        }
    }
}
