// headingd
// SPDX-License-Identifier: Apache-2.0

import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The HTTP listener's defence, for every service on it: it counts the open
/// connections and knows what each is doing, so that at ``HTTPLimits/maximumConnections`` a new
/// connection closes the oldest one that is idle or still sending its request head, never one
/// serving a request or a stream. `Sendable`: its table is behind a `Mutex`.
final class HTTPConnectionGuard: Sendable {
    /// What a connection is doing.
    enum Phase: Sendable {
        /// Opened, or done with its last response: its next request head has not come whole.
        case awaitingHead
        /// A request is being served.
        case busy
        /// A WebSocket stream: never idle while it answers pings (the stream watches that).
        case stream
    }

    private struct Entry {
        let channel: any Channel
        var phase: Phase
        var since: NIODeadline
    }

    /// The limits.
    let limits: HTTPLimits
    private let logger: Logger
    private let table = Mutex([ObjectIdentifier: Entry]())
    private let evicted = Atomic<Int>(0)

    init(limits: HTTPLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    /// How many connections are open.
    var openConnections: Int { table.withLock { $0.count } }

    /// How many connections were closed to make room, since the start.
    var evictions: Int { evicted.load(ordering: .relaxed) }

    /// Takes a new connection: at the limit, closes the oldest idle or head-sending one, or, when
    /// every one is busy, refuses this one.
    /// - Returns: Whether the connection is kept.
    func admit(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let (kept, victim): (Bool, (any Channel)?) = table.withLock { table in
            var victim: (any Channel)?
            if table.count >= limits.maximumConnections {
                let oldest = table.filter { $0.value.phase == .awaitingHead }.min { $0.value.since < $1.value.since }
                guard let oldest else { return (false, nil) }
                table[oldest.key] = nil
                victim = oldest.value.channel
            }
            table[id] = Entry(channel: channel, phase: .awaitingHead, since: .now())
            return (true, victim)
        }
        if let victim {
            evicted.add(1, ordering: .relaxed)
            victim.close(promise: nil)
        }
        if kept {
            channel.closeFuture.whenComplete { [self] _ in _ = table.withLock { $0.removeValue(forKey: id) } }
        } else {
            logger.warning("HTTP connection \(channel.remoteAddress.map { "\($0)" } ?? "?") refused: \(limits.maximumConnections) connections, all busy")
        }
        return kept
    }

    /// Records what a connection is doing now.
    func set(_ channel: any Channel, _ phase: Phase) {
        table.withLock { table in
            let id = ObjectIdentifier(channel)
            guard table[id] != nil, table[id]!.phase != .stream else { return }
            table[id]!.phase = phase
            table[id]!.since = .now()
        }
    }

    /// Whether the connection has become a WebSocket stream.
    func isStream(_ channel: any Channel) -> Bool {
        table.withLock { $0[ObjectIdentifier(channel)]?.phase == .stream }
    }
}

/// The first handler of each HTTP connection, on its raw bytes (Hummingbird's own handlers come
/// only once a request head has arrived, for a listener that upgrades to WebSocket): it gives a
/// connection ``HTTPLimits/requestHeadTimeout`` to send a whole request head (the blank line that
/// ends it) from its opening, or from its first byte after a response; bounds what a request sends
/// before its response begins (``HTTPLimits/maximumRequestSize``); and keeps the guard's table
/// told. A WebSocket stream is left alone.
final class HTTPConnectionWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case awaitingHead
        case busy
        case responded
    }

    private let guardian: HTTPConnectionGuard
    private var state = State.awaitingHead
    private var deadline: Scheduled<Void>?
    /// The last three bytes read, to find a `\r\n\r\n` split across reads.
    private var tail: UInt32 = 0
    private var requestBytes = 0

    init(guardian: HTTPConnectionGuard) {
        self.guardian = guardian
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard guardian.admit(context.channel) else {
            context.close(promise: nil)
            return
        }
        armDeadline(context, seconds: guardian.limits.requestHeadTimeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if guardian.isStream(context.channel) {
            deadline?.cancel()
            context.fireChannelRead(data)
            return
        }
        if state == .responded {
            state = .awaitingHead
            requestBytes = 0
            guardian.set(context.channel, .awaitingHead)
            armDeadline(context, seconds: guardian.limits.requestHeadTimeout)
        }
        requestBytes += bytes.readableBytes
        guard requestBytes <= guardian.limits.maximumRequestSize else {
            deadline?.cancel()
            context.close(promise: nil)
            return
        }
        if state == .awaitingHead, headEnds(in: bytes) {
            deadline?.cancel()
            deadline = nil
            state = .busy
            guardian.set(context.channel, .busy)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if state == .busy {
            // The response has begun: the next request's head is timed from its first byte, and
            // until then the connection is idle (Hummingbird's idle timeout closes it).
            state = .responded
            guardian.set(context.channel, .awaitingHead)
        }
        context.write(data, promise: promise)
    }

    /// Whether the bytes complete a request head: the blank line after the header fields.
    private func headEnds(in bytes: ByteBuffer) -> Bool {
        var found = false
        bytes.withUnsafeReadableBytes { raw in
            for byte in raw {
                tail = tail << 8 | UInt32(byte)
                if tail == 0x0D0A_0D0A || tail & 0xFFFF == 0x0A0A { found = true }
            }
        }
        return found
    }

    private func armDeadline(_ context: ChannelHandlerContext, seconds: Double) {
        deadline?.cancel()
        let channel = context.channel
        let guardian = guardian
        deadline = context.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
            // A stream's bytes never end a head: it is not timed.
            if !guardian.isStream(channel) { channel.close(promise: nil) }
        }
    }
}

/// A Hummingbird child channel with ``HTTPConnectionWatch`` first in each connection's pipeline.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let guardian: HTTPConnectionGuard

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionWatch(guardian: guardian), position: .first)
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
