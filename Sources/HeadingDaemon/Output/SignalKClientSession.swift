// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import HummingbirdWebSocket
import Logging
import NIOCore
import Prometheus
import Synchronization

/// One Signal K stream client: the hello, then deltas by its own subscriptions and rates, and its
/// subscribe and unsubscribe requests read and answered. Its events come from the hub through a
/// bounded queue (the newest kept); a write that finds no room for ``SignalKOutput/writeTimeout``
/// closes the connection, so a client that stops reading never delays another or the pipeline.
struct SignalKClientSession: Sendable {
    /// What `?subscribe=` asked for when the client connected.
    enum InitialSubscription: String, Sendable {
        case selfVessel = "self"
        case all
        case none
    }

    /// The session's state, shared by its reader, its waker and its writer.
    private final class Shared: Sendable {
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }
    }

    private struct State {
        var subscriptions: SignalKSubscriptionSet
        /// The latest heading and its values, until it goes stale.
        var latest: (heading: Heading, values: [(SignalKDeltaEncoder.Path, String)])?
        var metaSent: Set<SignalKDeltaEncoder.Path> = []
    }

    let id: UUID
    let hub: SignalKHub
    let channel: any Channel
    let logger: Logger
    let peer: String

    /// Serves the client until it goes, is dropped, or the output stops.
    /// - Throws: What ended the session; the WebSocket handler closes the connection with the
    ///   code it carries (1009 for a message over the limit, 1002 for a protocol error).
    func run(
        events: AsyncStream<SignalKHub.Event>, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        initial: InitialSubscription, subscriptionLimit: Int
    ) async throws {
        let origin = ContinuousClock.now
        var set = SignalKSubscriptionSet(limit: subscriptionLimit)
        if initial != .none { try? set.subscribe([SignalKSubscription(path: "*", policy: .instant)]) }
        let shared = Shared(State(subscriptions: set))
        defer { hub.removeClient(id) }
        try await write(hub.encoder.hello(at: Date()), to: outbound)
        // The notifications raised before the client came, when it subscribed to everything.
        if initial != .none {
            for notification in hub.raisedNotifications { try await write(hub.encoder.delta(for: notification), to: outbound) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await readRequests(inbound: inbound, outbound: outbound, shared: shared) }
            group.addTask { await wakeForPeriods(shared: shared, origin: origin) }
            group.addTask {
                for await event in events {
                    for text in deltas(for: event, shared: shared, now: origin.duration(to: .now)) {
                        try await write(text, to: outbound)
                    }
                }
            }
            // The first to end (the client went, a write failed, the output stopped) ends the session.
            defer { group.cancelAll() }
            _ = try await group.next()
        }
    }

    /// The deltas one event gives this client, by its subscriptions.
    private func deltas(for event: SignalKHub.Event, shared: Shared, now: Duration) -> [String] {
        let encoder = hub.encoder
        switch event {
        case .heading(let heading, let values, let fullDelta):
            return shared.state.withLock { state in
                state.latest = (heading, values)
                let changed = values.map(\.0.rawValue)
                let send = state.subscriptions.changed(changed, at: now)
                // Every path, meta already sent: the hub's delta, encoded once for all clients.
                if let fullDelta, send.count == changed.count, state.metaSent.isSuperset(of: values.map(\.0)) {
                    return [fullDelta]
                }
                return delta(of: send, state: &state).map { [$0] } ?? []
            }
        case .tick:
            let known = hub.knownPaths.map(\.rawValue)
            return shared.state.withLock { state in
                guard state.latest != nil else { return [] }
                let send = state.subscriptions.due(at: now, known: known)
                return delta(of: send, state: &state).map { [$0] } ?? []
            }
        case .unavailable(let paths, let source, let timestamp):
            return shared.state.withLock { state in
                state.latest = nil
                let subscribed = paths.filter { state.subscriptions.rule(for: $0.rawValue) != nil }
                return subscribed.isEmpty ? [] : [encoder.unavailable(subscribed, source: source, at: timestamp)]
            }
        case .notification(let notification):
            let subscribed = shared.state.withLock { $0.subscriptions.rule(for: notification.path) != nil }
            return subscribed ? [encoder.delta(for: notification)] : []
        }
    }

    private func delta(of paths: [String], state: inout State) -> String? {
        guard !paths.isEmpty, let (heading, values) = state.latest else { return nil }
        let selected = Set(paths.compactMap(SignalKDeltaEncoder.Path.init(rawValue:)))
        let meta = !state.metaSent.isSuperset(of: selected)
        state.metaSent.formUnion(selected)
        return hub.encoder.delta(for: heading, values: values.filter { selected.contains($0.0) }, includingMeta: meta)
    }

    /// Reads the client's messages: subscribe and unsubscribe change its set; anything else is
    /// answered with an error and the session goes on. A message over the size limit ends the
    /// session with an error that closes the connection with 1009 (message too big).
    private func readRequests(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, shared: Shared) async throws {
        for try await message in inbound.messages(maxSize: SignalKOutput.maximumMessageSize) {
            guard case .text(let text) = message else {
                try await write(Self.refusal("headingd reads JSON text messages only"), to: outbound)
                continue
            }
            let request: SignalKClientMessage
            do {
                request = try SignalKClientMessage(parsing: text)
            } catch {
                try await write(Self.refusal(error.description), to: outbound)
                continue
            }
            switch request {
            case .subscribe(let context, let subscriptions):
                guard SignalKClientMessage.names(context, selfContext: hub.encoder.context) else { continue }
                do {
                    try shared.state.withLock { state throws(SignalKSubscriptionSet.LimitError) in try state.subscriptions.subscribe(subscriptions) }
                } catch {
                    try await write(Self.refusal(error.description), to: outbound)
                    continue
                }
                // Raised notifications a new subscription covers go at once; values at the next tick.
                for notification in hub.raisedNotifications where subscriptions.contains(where: { $0.matches(notification.path) }) {
                    try await write(hub.encoder.delta(for: notification), to: outbound)
                }
                hub.tick(id)
            case .unsubscribe(let context, let paths):
                guard SignalKClientMessage.names(context, selfContext: hub.encoder.context) else { continue }
                shared.state.withLock { $0.subscriptions.unsubscribe(paths) }
            }
        }
    }

    /// Sends a `.tick` when the client's next periodic send is due (at most a second apart).
    private func wakeForPeriods(shared: Shared, origin: ContinuousClock.Instant) async {
        while !Task.isCancelled {
            let known = hub.knownPaths.map(\.rawValue)
            let deadline = shared.state.withLock { $0.subscriptions.nextDeadline(known: known) }
            let now = origin.duration(to: .now)
            let wait = min(.seconds(1), max(.milliseconds(5), (deadline ?? now + .seconds(1)) - now))
            try? await Task.sleep(for: wait)
            hub.tick(id)
        }
    }

    /// Writes one text message; a write that cannot go out within ``SignalKOutput/writeTimeout``
    /// (the client reads nothing) closes the connection, which ends the write with an error.
    private func write(_ text: String, to outbound: WebSocketOutboundWriter) async throws {
        let channel = channel
        let logger = logger
        let peer = peer
        let metrics = hub.metrics
        let timer = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(SignalKOutput.writeTimeout.components.seconds) * 1_000_000_000)) {
            logger.notice("Signal K client \(peer) disconnected: it read nothing for \(SignalKOutput.writeTimeout.components.seconds).0 seconds")
            metrics?.clientsDropped.increment()
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        try await outbound.write(.text(text))
        metrics?.messagesSent.increment()
    }

    /// A Signal K request reply refusing a message.
    static func refusal(_ message: String) -> String {
        "{\"state\":\"COMPLETED\",\"statusCode\":400,\"message\":" + JSONText.quoted(message) + "}"
    }
}
