// headingd
// SPDX-License-Identifier: Apache-2.0

import NMEA2000

/// The frames the NMEA 2000 output has yet to write, bounded, keeping the newest: a message (its
/// frames, which share one identifier) replaces one still waiting with the same identifier — a
/// newer heading replaces the older, a request asked again is answered once — and when the frames
/// would exceed ``capacity`` the oldest messages not yet begun are dropped. A message is written
/// whole or not at all, its frames in order. Pure.
struct CANFrameQueue {
    private struct Message {
        let identifier: CANIdentifier
        var frames: [CANFrame]
        var expires: Duration?
        var written = 0
    }

    /// The most frames waiting.
    let capacity: Int
    private var messages: [Message] = []
    private var frameCount = 0

    /// An empty queue.
    /// - Parameter capacity: The most frames waiting (at least one fast packet's 32).
    init(capacity: Int = 128) { self.capacity = max(32, capacity) }

    /// Whether nothing waits.
    var isEmpty: Bool { messages.isEmpty }
    /// The frames waiting.
    var count: Int { frameCount }

    /// Adds frames, grouped into messages by identifier (consecutive frames with one identifier
    /// are one message).
    /// - Parameters:
    ///   - frames: The frames.
    ///   - expires: When they are no longer worth sending (a heading's), if ever.
    /// - Returns: How many messages were dropped or replaced to make room.
    @discardableResult
    mutating func append(_ frames: [CANFrame], expires: Duration? = nil) -> Int {
        var dropped = 0
        var start = frames.startIndex
        while start < frames.endIndex {
            let identifier = frames[start].identifier
            var end = start + 1
            while end < frames.endIndex, frames[end].identifier == identifier { end += 1 }
            dropped += add(Message(identifier: identifier, frames: Array(frames[start..<end]), expires: expires))
            start = end
        }
        return dropped
    }

    private mutating func add(_ message: Message) -> Int {
        var dropped = 0
        if let index = messages.firstIndex(where: { $0.identifier == message.identifier && $0.written == 0 }) {
            frameCount -= messages.remove(at: index).frames.count
            dropped += 1
        }
        while frameCount + message.frames.count > capacity, let index = messages.firstIndex(where: { $0.written == 0 }) {
            frameCount -= messages.remove(at: index).frames.count
            dropped += 1
        }
        guard frameCount + message.frames.count <= capacity else { return dropped + 1 }
        messages.append(message)
        frameCount += message.frames.count
        return dropped
    }

    /// Drops every message not yet begun but address claims (a claim starts: nothing else for 250 ms).
    /// - Returns: How many were dropped.
    @discardableResult
    mutating func removeAllButClaims() -> Int {
        let before = messages.count
        messages.removeAll { $0.written == 0 && $0.identifier.pgn != NMEA2000PGN.addressClaim }
        frameCount = messages.reduce(0) { $0 + $1.frames.count - $1.written }
        return before - messages.count
    }

    /// Drops the messages not yet begun that expired by `now`.
    /// - Returns: How many were dropped.
    @discardableResult
    mutating func removeExpired(at now: Duration) -> Int {
        let before = messages.count
        messages.removeAll { message in message.written == 0 && message.expires.map { $0 <= now } == true }
        frameCount = messages.reduce(0) { $0 + $1.frames.count - $1.written }
        return before - messages.count
    }

    /// Drops everything (the link ended: a new claim follows).
    mutating func removeAll() {
        messages.removeAll()
        frameCount = 0
    }

    /// The next frame to write.
    var next: CANFrame? { messages.first.map { $0.frames[$0.written] } }

    /// The next frame was written.
    mutating func removeNext() {
        guard !messages.isEmpty else { return }
        messages[0].written += 1
        frameCount -= 1
        if messages[0].written == messages[0].frames.count { messages.removeFirst() }
    }
}
