// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import Logging
import MosquittoClient
import Prometheus
import ServiceLifecycle
import Synchronization

/// Publishes to the fleet's MQTT broker through libmosquitto (``MosquittoClient``): headingd's
/// status (retained; the last will says `offline`), the heading's Signal K values at most
/// ``MQTTSettings/rate`` a second (the newest wins; retained; emptied when stale), and each
/// fault's Signal K notification (QoS 1, retained), written to the ``MQTTJournal`` first and
/// removed from it only once the broker has acknowledged it. Headings are perishable: while the
/// broker is unreachable none is kept but the newest. A broker that cannot be reached is logged
/// and retried (exponential backoff with jitter, 1 s to 60 s), never a reason to stop headings.
final class MQTTOutput: Service, MosquittoClient.Delegate, HeadingEventConsumer, Sendable {
    /// Why the output could not be opened.
    /// What to publish, where.
    struct Configuration: Sendable {
        let settings: MQTTSettings
        let broker: MQTTSettings.Broker
        /// The vessel's Signal K identity: the client id and the prefix's default.
        let selfURN: String
        /// When the heading is stale, and its topics emptied.
        let staleAfter: Double
        /// Where the journal is kept when the settings name no file.
        var stateDirectory = StateDirectory.process
        /// `$CREDENTIALS_DIRECTORY`, when systemd gives it.
        var credentialsDirectory: String? = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"]

        /// The topics' prefix.
        var prefix: String { settings.prefix ?? "vessels/\(selfURN)" }
    }

    private struct State: Sendable {
        var client: MosquittoClient?
        var journal: MQTTJournal?
        var board = SignalKNotificationBoard()
        var latest: Heading?
        var latestAt: ContinuousClock.Instant?
        /// The rate of turn at the latest heading, radians a second, as the Signal K output estimates it.
        var rateOfTurn = RateOfTurnEstimator()
        var latestRate: Double?
        var published: Heading?
        var publishedAt: ContinuousClock.Instant?
        var publishedPaths: Set<String> = []
        /// Journal rows in flight, by message id.
        var inFlight: [Int32: Int64] = [:]
        /// Whether the journal's backlog is still to be sent on the present connection (from the
        /// start, and from each connection until its replay has run): until then a new change
        /// waits in the journal behind the older ones, so that the broker gets them in order.
        var awaitingReplay = true
        /// Counts connections and disconnections: a replay ends the wait only for its own connection.
        var linkChanges = 0
        /// The last journal row the present connection's replay has read.
        var replayedThrough: Int64 = 0
        /// Rows the broker has acknowledged, not yet removed from the journal (when there are,
        /// their removal is on the journal's queue).
        var acknowledged: [Int64] = []
        var offlineMessage: Int32?
        var lastFailure: String?
        /// Each notification path's last state journalled: only a change is journalled again.
        var journalledStates: [String: String] = [:]
    }

    private let configuration: Configuration
    /// The fan-out it hears, its metrics (messages sent, dropped), the log.
    private let services: OutputServices
    private let connected: Gauge?
    private let journalDepth: Gauge?
    private let encoder: SignalKDeltaEncoder
    /// The fan-out's subscription, from ``startConsuming()`` until the run ends.
    private let observation = HeadingSubscriptionSlot()
    private let state = Mutex(State())
    private let offlineAcknowledged = DispatchSemaphore(value: 0)
    /// Where the journal is written and read, in order: never on the heading path (a write waits
    /// for the disk).
    private let journalQueue = DispatchQueue(label: "mqtt-journal")

    /// - Parameters:
    ///   - configuration: What to publish, where.
    ///   - services: The fan-out it hears, its metrics (messages sent, dropped), the log.
    ///   - registry: Where `headingd_mqtt_connected` and `headingd_mqtt_journal_messages` go.
    init(configuration: Configuration, services: OutputServices, registry: PrometheusCollectorRegistry?) {
        self.configuration = configuration
        self.services = services
        encoder = SignalKDeltaEncoder(selfURN: configuration.selfURN)
        connected = registry?.gauge(name: "headingd_mqtt_connected", help: "1 while the MQTT broker has accepted headingd's connection")
        journalDepth = registry?.gauge(name: "headingd_mqtt_journal_messages", help: "Messages in the MQTT journal, waiting for the broker's acknowledgement")
    }

    /// The password: from `password_file`, else systemd's credential `mqtt-password`, else none.
    private func password() throws(OutputOpenError) -> String? {
        let path = configuration.settings.passwordFile
            ?? configuration.credentialsDirectory.map { "\($0)/mqtt-password" }.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        guard let path else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 65_536, let text = String(data: data, encoding: .utf8) else {
            throw OutputOpenError.cannotOpen("MQTT output", "cannot read the password from \(path)")
        }
        return text.trimmingCharacters(in: .newlines)
    }

    /// Reads the password, opens the journal and makes the client: before the pipeline runs, so
    /// that a wrong file ends headingd with its reason.
    func open() throws(OutputOpenError) {
        let password = try password()
        let journalPath = configuration.settings.journal ?? configuration.stateDirectory.file("mqtt-journal.sqlite")
        let journal: MQTTJournal
        do {
            // A damaged file is moved aside, an unwritable directory means memory: never a reason to stop.
            journal = try SQLiteStore.opening(path: journalPath, what: "MQTT journal", logger: services.logger) { try MQTTJournal(path: $0) }.store
        } catch {
            throw OutputOpenError.cannotOpen("MQTT output", "cannot open the journal \(journalPath ?? "in memory"): \(error)")
        }
        if journalPath == nil {
            services.logger.notice("MQTT: no state directory: the journal is in memory, and fault changes not yet published are lost if headingd stops")
        }
        var client = MosquittoClient.Configuration(host: configuration.broker.host, port: configuration.broker.port, clientID: configuration.settings.clientID ?? configuration.selfURN)
        client.keepalive = Int32(configuration.settings.keepalive)
        client.username = configuration.settings.username
        client.password = password
        if configuration.broker.usesTLS {
            guard let ca = configuration.settings.caFile else { throw OutputOpenError.cannotOpen("MQTT output", "\(configuration.broker) needs ca_file (the CA that signs the broker's certificate)") }
            client.tls = MosquittoClient.TLS(caFile: ca, certificateFile: configuration.settings.certificateFile, keyFile: configuration.settings.keyFile)
        }
        client.will = MosquittoClient.Message(
            topic: "\(configuration.prefix)/status", payload: MQTTPayload.status(online: false, at: Date(), version: Headingd.version), qos: 1, retain: true
        )
        do {
            let made = try MosquittoClient(configuration: client, delegate: self)
            state.withLock {
                $0.client = made
                $0.journal = journal
            }
            journalDepth?.set(to: Double((try? journal.count()) ?? 0))
        } catch {
            throw OutputOpenError.cannotOpen("MQTT output", "\(configuration.broker): \(error)")
        }
    }

    /// Starts hearing the fan-out, once ``open()`` has made the journal (``HeadingEventConsumer``):
    /// a fault change from then on is journalled, and published once the broker is reached.
    func startConsuming() {
        guard state.withLock({ $0.journal != nil }) else { return }
        observation.subscribe(to: services.center, latestOnly: true) { [weak self] in self?.receive($0) }
    }

    /// Publishes until shutdown, then says `offline` and disconnects.
    func run() async throws {
        if state.withLock({ $0.client == nil }) { try open() }
        guard let client = state.withLock({ $0.client }) else { return }
        startConsuming()
        defer { observation.cancel() }
        services.logger.notice("MQTT to \(configuration.broker) under \(configuration.prefix)/")
        client.start()
        let interval = interval
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            tick(fromTimer: true)
            guard (try? await cancelWhenGracefulShutdown({ try await Task.sleep(for: interval) })) != nil else { break }
        }
        observation.cancel()
        // The stop waits (for the journal's queue, the broker, the client's thread): on a thread
        // of its own, not one of the cooperative pool's two.
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.finish(client)
                continuation.resume()
            }
        }
        connected?.set(to: 0)
    }

    /// The end of a run, blocking: what the center gave is journalled (and published, if
    /// connected), a connected client says offline and waits up to 0.4 s for the broker's
    /// acknowledgement, and the client stops within 0.5 s more — inside headingd's 1.5 s stop
    /// deadline.
    private func finish(_ client: MosquittoClient) {
        journalQueue.sync {}
        // A clean stop says offline itself: the broker sends no will on a clean disconnect.
        if client.isConnected {
            let message = MosquittoClient.Message(
                topic: "\(configuration.prefix)/status", payload: MQTTPayload.status(online: false, at: Date(), version: Headingd.version), qos: 1, retain: true
            )
            if let id = client.publish(message) {
                state.withLock { $0.offlineMessage = id }
                _ = offlineAcknowledged.wait(timeout: .now() + 0.4)
            }
        }
        client.stop(within: 0.5)
    }

    // MARK: Events from the center (the posting thread)

    private func receive(_ event: HeadingEvent) {
        let (notifications, journal) = state.withLock { state -> ([SignalKNotification], MQTTJournal?) in
            if case .heading(let heading) = event {
                state.latest = heading
                state.latestAt = .now
                state.latestRate = state.rateOfTurn.rate(after: heading).map { $0 * .pi / 180 / 60 }
            }
            // Only changes: a fault raised again while raised (a stream of malformed lines) is not journalled again.
            let changes = state.board.update(with: event).filter { notification in
                defer { state.journalledStates[notification.path] = notification.state.rawValue }
                return state.journalledStates[notification.path] != notification.state.rawValue
            }
            return (changes, state.journal)
        }
        if case .heading = event { tick() }
        guard let journal, !notifications.isEmpty else { return }
        journalQueue.async { [self] in journalAndSend(notifications, journal) }
    }

    /// Writes each change to the journal, then publishes it (on the journal's queue).
    private func journalAndSend(_ notifications: [SignalKNotification], _ journal: MQTTJournal) {
        for notification in notifications {
            let topic = MQTTPayload.topic(configuration.prefix, notification.path)
            do {
                let (entry, dropped) = try journal.append { id in
                    MosquittoClient.Message(topic: topic, payload: MQTTPayload.notification(notification, id: id), qos: 1, retain: true)
                }
                if dropped > 0 { services.logger.warning("MQTT: the journal is full: its \(dropped) oldest messages were dropped unsent") }
                // Behind a backlog not yet replayed, it waits its turn in the journal.
                if !state.withLock({ $0.awaitingReplay }) { send(entry) }
            } catch {
                services.logger.error("MQTT: cannot write to the journal: \(error); \(notification.path) is published without it")
                _ = state.withLock { $0.client }?.publish(
                    MosquittoClient.Message(topic: topic, payload: MQTTPayload.notification(notification, id: 0), qos: 1, retain: true)
                )
            }
        }
        journalDepth?.set(to: Double((try? journal.count()) ?? 0))
    }

    /// Publishes a journal entry, if connected (else it waits in the journal for the connection).
    /// - Returns: Whether it was published.
    @discardableResult
    private func send(_ entry: MQTTJournal.Entry) -> Bool {
        let sent = state.withLock { state in
            guard let client = state.client, let id = client.publish(entry.message) else { return false }
            state.inFlight[id] = entry.id
            return true
        }
        if sent { services.metrics?.messagesSent.increment() }
        return sent
    }

    // MARK: The rate timer

    /// The shortest time between two headings published.
    private var interval: Duration { .milliseconds(Int64((1000 / configuration.settings.rate).rounded())) }

    /// Publishes the newest heading if it is newer than the last published and the last was at
    /// least an interval ago: at once when a heading comes (so that it leaves as it arrives), or
    /// from the timer for one that came too soon. Empties the heading topics once the heading is stale.
    private func tick(now: ContinuousClock.Instant = .now, fromTimer: Bool = false) {
        let staleAfter = Duration.milliseconds(Int64(configuration.staleAfter * 1000))
        let interval = interval
        let work = state.withLock { state -> (Heading?, [String], Double?) in
            guard let client = state.client, client.isConnected else { return (nil, [], nil) }
            if let at = state.latestAt, now - at > staleAfter {
                guard !state.publishedPaths.isEmpty else { return (nil, [], nil) }
                defer { state.publishedPaths = [] }
                return (nil, Array(state.publishedPaths), nil)
            }
            guard let latest = state.latest, latest.timestamp != state.published?.timestamp || latest.source != state.published?.source,
                state.publishedAt.map({ now - $0 >= interval }) ?? true,
                // While headings flow, the next one's arrival publishes it, fresh.
                !fromTimer || state.latestAt.map({ now - $0 >= min(interval, .milliseconds(200)) }) ?? true
            else { return (nil, [], nil) }
            state.published = latest
            state.publishedAt = now
            return (latest, [], state.latestRate)
        }
        guard let client = state.withLock({ $0.client }) else { return }
        for path in work.1 {
            // An empty retained message removes the retained value: a late subscriber sees none.
            _ = client.publish(MosquittoClient.Message(topic: MQTTPayload.topic(configuration.prefix, path), payload: [], qos: 0, retain: true))
        }
        guard let heading = work.0 else { return }
        var paths: [String] = []
        for (path, value) in encoder.values(for: heading, rateOfTurn: work.2) {
            let payload = MQTTPayload.value(value, at: heading.timestamp, source: SignalKDeltaEncoder.sourceReference(of: path, in: heading))
            if client.publish(MosquittoClient.Message(topic: MQTTPayload.topic(configuration.prefix, path.rawValue), payload: payload, qos: 0, retain: true)) != nil {
                services.metrics?.messagesSent.increment()
                paths.append(path.rawValue)
            } else {
                services.metrics?.messagesDropped.increment()
            }
        }
        state.withLock { $0.publishedPaths.formUnion(paths) }
    }

    // MARK: The client's thread

    func mosquittoConnected(_ client: MosquittoClient) {
        services.logger.notice("MQTT: connected to \(configuration.broker)")
        connected?.set(to: 1)
        services.metrics?.clients.set(to: 1)
        let (journal, link) = state.withLock { state -> (MQTTJournal?, Int) in
            state.lastFailure = nil
            state.inFlight = [:]
            state.awaitingReplay = true
            state.linkChanges += 1
            state.replayedThrough = 0
            state.published = nil  // the newest heading goes out again on the next tick
            state.publishedAt = nil
            return (state.journal, state.linkChanges)
        }
        _ = client.publish(
            MosquittoClient.Message(
                topic: "\(configuration.prefix)/status", payload: MQTTPayload.status(online: true, at: Date(), version: Headingd.version), qos: 1, retain: true
            )
        )
        // What the broker has not acknowledged, in order, then what comes new (a change
        // journalled before the replay ends waits for it: a run saw a new change overtake the backlog).
        guard let journal else { return }
        journalQueue.async { [self] in replayMore(journal, link: link) }
    }

    /// The most journal messages a replay leaves unacknowledged at once: the next are read and
    /// published as acknowledgements come, so a backlog of a week offline (the journal holds up
    /// to 100,000) is never in memory whole, neither here nor in libmosquitto's queue.
    static let replayWindow = 100

    /// On the journal's queue: publishes the journal's next rows after those the replay of
    /// connection `link` has read, up to ``replayWindow`` unacknowledged, and ends the replay
    /// once none is left. A change journalled meanwhile is one of those rows, so it goes in order.
    private func replayMore(_ journal: MQTTJournal, link: Int) {
        let (room, after) = state.withLock { state -> (Int, Int64) in
            guard state.linkChanges == link, state.awaitingReplay else { return (0, 0) }
            return (Self.replayWindow - state.inFlight.count, state.replayedThrough)
        }
        guard room > 0 else { return }
        let entries: [MQTTJournal.Entry]
        do {
            entries = try journal.pending(after: after, limit: room)
        } catch {
            // Tried again at the next acknowledgement or connection; new changes wait meanwhile.
            services.logger.error("MQTT: cannot read the journal: \(error)")
            return
        }
        var refused: [Int64] = []
        defer {
            // One line for a replay's refusals, not one per message.
            if !refused.isEmpty {
                services.logger.warning("MQTT: \(refused.count) journal messages (from \(refused[0])) could not be published; they stay in the journal for the next connection")
            }
        }
        for entry in entries {
            state.withLock { $0.replayedThrough = entry.id }
            if send(entry) { continue }
            // The link has gone again: the rest, and what comes meanwhile, wait for the next
            // connection's replay, in order. Connected, the one the client refused stays in the
            // journal and the rest go on: one message must not hold back every other.
            guard state.withLock({ $0.client?.isConnected }) == true else { return }
            refused.append(entry.id)
        }
        if entries.count < room {
            state.withLock { state in
                if state.linkChanges == link { state.awaitingReplay = false }
            }
        }
    }

    func mosquittoDisconnected(_ client: MosquittoClient, reason: String, retryIn: Double?) {
        state.withLock { state in
            state.awaitingReplay = true
            state.linkChanges += 1
        }
        connected?.set(to: 0)
        services.metrics?.clients.set(to: 0)
        guard let retryIn else { return }
        let isNew = state.withLock { state in
            defer { state.lastFailure = reason }
            return state.lastFailure != reason
        }
        // Once per reason, not once per attempt.
        if isNew { services.logger.warning("MQTT: \(configuration.broker): \(reason); retrying (next in \(String(format: "%.1f", retryIn)) s, then backing off to 60 s)") }
    }

    func mosquittoPublished(_ client: MosquittoClient, messageID: Int32) {
        let (journal, isOffline, schedule) = state.withLock { state -> (MQTTJournal?, Bool, Bool) in
            var schedule = false
            if let row = state.inFlight.removeValue(forKey: messageID) {
                schedule = state.acknowledged.isEmpty  // else the removal waiting on the queue takes it too
                state.acknowledged.append(row)
            }
            return (state.journal, state.offlineMessage == messageID, schedule)
        }
        if isOffline { offlineAcknowledged.signal() }
        guard schedule, let journal else { return }
        journalQueue.async { [self] in removeAcknowledged(journal) }
    }

    /// On the journal's queue: removes every row acknowledged since the last removal, in one
    /// transaction, and lets a replay under way fill the room the acknowledgements made.
    private func removeAcknowledged(_ journal: MQTTJournal) {
        let rows = state.withLock { state in
            defer { state.acknowledged = [] }
            return state.acknowledged
        }
        do {
            try journal.remove(rows)
            journalDepth?.set(to: Double((try? journal.count()) ?? 0))
        } catch {
            services.logger.error("MQTT: cannot remove \(rows.count) acknowledged messages from the journal: \(error); they may be published again")
        }
        if let link = state.withLock({ $0.awaitingReplay ? $0.linkChanges : nil }) { replayMore(journal, link: link) }
    }
}
