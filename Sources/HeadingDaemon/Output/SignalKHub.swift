// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import NIOCore
import Prometheus
import Synchronization

/// What the Signal K output knows, kept from `NotificationCenter.heading`: the model the REST API
/// serves, the notifications raised, and every connected stream client, to each of which it hands
/// each event without waiting (a client's own bounded queue keeps the newest).
final class SignalKHub: Sendable {
    /// One event for the stream clients.
    enum Event: Sendable {
        /// A heading with its paths' values (rate of turn included when known), written once,
        /// and its delta with every path and no meta, for all the clients that want just that.
        case heading(Heading, values: [(SignalKDeltaEncoder.Path, String)], fullDelta: String?)
        /// These paths have no current value (the heading went stale).
        case unavailable([SignalKDeltaEncoder.Path], source: String, at: Date)
        /// A notification raised or cleared.
        case notification(SignalKNotification)
        /// Time to look at the periodic subscriptions.
        case tick
    }

    private struct State {
        var model: SignalKModel
        var board = SignalKNotificationBoard()
        var rateOfTurn = RateOfTurnEstimator()
        var lastSource: String?
        var clients: [UUID: AsyncStream<Event>.Continuation] = [:]
        var channels: [UUID: any Channel] = [:]
    }

    /// Fault codes that mean the heading's source delivers no more: its values go to `null`.
    private static let silencing: Set<HeadingFault.Code> = [.stale, .deviceLost, .sourceUnavailable]

    private let state: Mutex<State>
    private let center: any HeadingEventCenter
    private let observation = HeadingSubscriptionSlot()
    /// The encoder for the vessel.
    let encoder: SignalKDeltaEncoder

    /// Stream clients, deltas and drops, for `/metrics`.
    let metrics: OutputMetrics?

    /// - Parameters:
    ///   - selfURN: The vessel's identity.
    ///   - center: Where headings and faults come from (the fan-out; a center in tests).
    init(selfURN: String, center: any HeadingEventCenter, metrics: OutputMetrics? = nil) {
        self.metrics = metrics
        state = Mutex(State(model: SignalKModel(selfURN: selfURN)))
        encoder = SignalKDeltaEncoder(selfURN: selfURN)
        self.center = center
    }

    /// Starts hearing headings and faults; a second call does nothing.
    func start() {
        observation.subscribe(to: center, latestOnly: false) { [weak self] event in self?.receive(event) }
    }

    /// Stops observing, ends every client's queue and closes every client's connection (a client
    /// that reads nothing would otherwise hold its session, and the shutdown, in a write).
    func stop() {
        observation.cancel()
        let (clients, channels) = state.withLock { state in
            defer {
                state.clients.removeAll()
                state.channels.removeAll()
            }
            return (Array(state.clients.values), Array(state.channels.values))
        }
        for client in clients { client.finish() }
        for channel in channels { channel.close(promise: nil) }
    }

    /// The number of stream clients.
    var clientCount: Int { state.withLock { $0.clients.count } }

    /// Adds a stream client on `channel`, unless `limit` are already connected.
    /// - Returns: The client's events (at most `backlog` queued; the newest kept), or `nil` when full.
    func addClient(_ id: UUID, channel: any Channel, limit: Int, backlog: Int) -> AsyncStream<Event>? {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(backlog))
        let added = state.withLock { state -> Int? in
            guard state.clients.count < limit else { return nil }
            state.clients[id] = continuation
            state.channels[id] = channel
            return state.clients.count
        }
        if let added { metrics?.clients.set(to: Double(added)) } else { metrics?.clientsDropped.increment() }
        return added != nil ? stream : nil
    }

    /// Removes a stream client.
    func removeClient(_ id: UUID) {
        let (removed, remaining) = state.withLock { state in
            state.channels[id] = nil
            return (state.clients.removeValue(forKey: id), state.clients.count)
        }
        removed?.finish()
        if removed != nil { metrics?.clients.set(to: Double(remaining)) }
    }

    /// Wakes one client's periodic subscriptions.
    func tick(_ id: UUID) {
        _ = state.withLock { $0.clients[id] }?.yield(.tick)
    }

    /// The full model, or the JSON at a sub-path of it (`nil`: nothing there).
    func render(subPath: [String]) -> String? {
        state.withLock { subPath.isEmpty ? $0.model.render() : $0.model.render(subPath: subPath) }
    }

    /// The latest heading's paths with values, for a client's periodic subscriptions.
    var knownPaths: [SignalKDeltaEncoder.Path] { state.withLock { $0.model.knownPaths } }

    /// The notifications raised now (for a client that subscribes to them after they were raised).
    var raisedNotifications: [SignalKNotification] { state.withLock { $0.model.notifications.filter { $0.state != .normal } } }

    private func receive(_ event: HeadingEvent) {
        var events: [Event] = []
        var rateOfTurn: Double?
        let clients = state.withLock { state -> [AsyncStream<Event>.Continuation] in
            // No client: the model is kept, and no event array is made.
            let listened = !state.clients.isEmpty
            for notification in state.board.update(with: event) {
                state.model.update(with: notification)
                if listened { events.append(.notification(notification)) }
            }
            switch event {
            case .heading(let heading):
                // Degrees a minute → radians a second.
                let rate = state.rateOfTurn.rate(after: heading).map { $0 * .pi / 180 / 60 }
                // The model writes its numbers when it is read; the clients' values are written below, only if there are clients.
                state.model.update(with: heading, rateOfTurn: rate)
                state.lastSource = heading.source
                rateOfTurn = rate
                if listened { events.append(.heading(heading, values: [], fullDelta: nil)) }
            case .fault(let fault) where Self.silencing.contains(fault.code) && fault.source == state.lastSource:
                let paths = state.model.makeUnavailable(at: fault.timestamp)
                if listened, !paths.isEmpty { events.append(.unavailable(paths, source: fault.source, at: fault.timestamp)) }
            default:
                break
            }
            return events.isEmpty ? [] : Array(state.clients.values)
        }
        guard !clients.isEmpty else { return }
        // The values and the full delta are written here, once, outside the lock, rather than by each client.
        events = events.map { event in
            guard case .heading(let heading, _, _) = event else { return event }
            let values = encoder.values(for: heading, rateOfTurn: rateOfTurn)
            return .heading(heading, values: values, fullDelta: encoder.delta(for: heading, values: values))
        }
        var dropped: Int64 = 0
        for client in clients {
            for event in events {
                if case .dropped = client.yield(event) { dropped += 1 }
            }
        }
        if dropped > 0 { metrics?.messagesDropped.increment(by: dropped) }
    }
}
