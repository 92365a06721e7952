// headingd
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
import HeadingPorts
#endif
import Foundation
import HeadingKit
import HeadingOutputs
import Logging
import NMEA2000
import Prometheus
import ServiceLifecycle
import Synchronization

/// headingd as a node on the NMEA 2000 bus: an ``NMEA2000Node`` (the claim, the answers
/// a plotter asks for, the heartbeat, 127250/127251/127257/127258 for each heading) driven by a
/// thread of its own over a ``CANLink`` — a SocketCAN interface or a Yacht Devices gateway in RAW
/// mode.
///
/// Headings come from the fan-out (the newest of each batch) and go out as they come, at most
/// ``NMEA2000OutputSettings/rate`` a second (a heading early for its slot waits for it, replaced by
/// a newer one); nothing is sent while no heading comes (a stale or failed source). Writes never
/// block: frames wait in a bounded queue (``CANFrameQueue``: the newest heading replaces an older
/// one still waiting, a heading older than a second is not sent), a full interface queue is tried
/// again 5 ms later (100 ms once the bus is reported stuck), and a bus that takes nothing for 2 s is reported once (no other node to
/// acknowledge, a cable out) and again when it takes frames. A link that ends (interface down,
/// bus-off, the gateway closed) is opened again with backoff, and the node claims again.
final class NMEA2000Output: Service, HeadingEventConsumer, Sendable {
    /// What the node is and where it goes.
    struct Configuration: Sendable {
        let settings: NMEA2000OutputSettings
        let interface: NMEA2000OutputSettings.Interface
        let identity: NMEA2000Node.Identity
        /// The address claimed first: the one held last.
        let preferredAddress: UInt8
    }

    /// How long a bus may take nothing before it is reported.
    static let stuckAfter: Duration = .seconds(2)
    /// How long after a full queue a write is tried again (``stuckRetryAfter`` once the bus is
    /// reported stuck).
    static let retryAfter: Duration = .milliseconds(5)
    /// How long after a full queue a write is tried again while the bus is stuck (no other node
    /// on it: the controller retries its frame for ever): a few wake-ups a second, not two
    /// hundred, on a bus that may stay empty for hours.
    static let stuckRetryAfter: Duration = .milliseconds(100)
    /// How long a heading is worth sending.
    static let headingLifetime: Duration = .seconds(1)
    /// The write latency histogram's buckets: 25 µs to 1 s, fine below a millisecond (the bound a
    /// heading to its 127250 is held to).
    static let latencyBuckets: [Duration] = [
        .microseconds(25), .microseconds(50), .microseconds(100), .microseconds(150), .microseconds(200), .microseconds(300),
        .microseconds(400), .microseconds(500), .microseconds(750), .milliseconds(1), .milliseconds(2.5), .milliseconds(10),
        .milliseconds(100), .seconds(1),
    ]

    private struct Shared {
        var latest: (sample: NMEA2000Node.HeadingSample, at: ContinuousClock.Instant)?
        var rateOfTurn = RateOfTurnEstimator()
        var stopped = false
    }

    private let configuration: Configuration
    private let center: any HeadingEventCenter
    /// The fan-out's subscription, from ``startConsuming()`` until the run ends.
    private let observation = HeadingSubscriptionSlot()
    private let metrics: OutputMetrics
    private let address: Gauge?
    private let claimed: Gauge?
    private let writeLatency: DurationHistogram?
    private let store: NMEA2000NodeStore?
    /// The node's presence on its bus, shared with the sources that read the bus.
    private let localNode: NMEA2000LocalNode
    /// Opens a link in a test (a scripted one); `nil` opens the configuration's interface.
    private let linkOpener: (@Sendable (_ wake: Int32) throws(PortFailure) -> any CANLink)?
    private let logger: Logger
    private let shared = Mutex(Shared())
    /// The self-pipe that wakes the thread: a heading came, or the output stops.
    /// Wakes the thread in its `poll(2)`: a heading, a stop.
    private let wake = WakePipe()
    private let origin = ContinuousClock.now

    /// - Parameters:
    ///   - configuration: The node.
    ///   - center: Where headings come from.
    ///   - metrics: The output's metrics (`output="nmea2000"`).
    ///   - registry: Where its address, claim and write latency are registered; `nil` in tests.
    ///   - store: Where its address is kept when a contest moves it; `nil` for nowhere.
    ///   - localNode: Where it says its address and NAME to the sources reading its bus
    ///     (``NMEA2000Buses``); by default a presence no source reads.
    ///   - linkOpener: Opens a link in a test; `nil` opens the configuration's interface.
    ///   - logger: Its log.
    init(
        configuration: Configuration, center: any HeadingEventCenter, metrics: OutputMetrics, registry: PrometheusCollectorRegistry?,
        store: NMEA2000NodeStore?, localNode: NMEA2000LocalNode = NMEA2000LocalNode(),
        linkOpener: (@Sendable (_ wake: Int32) throws(PortFailure) -> any CANLink)? = nil, logger: Logger
    ) {
        self.configuration = configuration
        self.localNode = localNode
        self.linkOpener = linkOpener
        self.center = center
        self.metrics = metrics
        self.store = store
        self.logger = logger
        address = registry?.gauge(name: "headingd_output_nmea2000_address", help: "The NMEA 2000 node's address on the bus (254: none could be claimed)")
        claimed = registry?.gauge(name: "headingd_output_nmea2000_claimed", help: "1 while the NMEA 2000 node holds its address, 0 while it claims or cannot")
        writeLatency = registry?.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                metricName: "headingd_output_nmea2000_write_latency_seconds", unitName: "",
                helpText: "From a heading at the fan-out to its 127250 written to the NMEA 2000 link"
            ),
            buckets: Self.latencyBuckets
        )
    }

    /// Starts hearing the fan-out's headings (``HeadingEventConsumer``): the newest is kept for the
    /// node's schedule.
    func startConsuming() {
        observation.subscribe(to: center, latestOnly: true) { [weak self] event in self?.receive(event) }
    }

    /// Runs the node until shutdown: its thread, and the fan-out's headings to it.
    func run() async throws {
        startConsuming()
        defer { observation.cancel() }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                    let thread = Thread { [self] in
                        loop()
                        finished.resume()
                    }
                    thread.name = "headingd-n2k-out"
                    thread.start()
                }
            } onGracefulShutdown: {
                self.stop()
            }
        } onCancel: {
            self.stop()
        }
    }

    private func stop() {
        shared.withLock { $0.stopped = true }
        signal()
    }

    private func signal() { wake.wake() }

    /// A heading from the fan-out: kept as the newest, the thread woken. Where the processor delivers.
    private func receive(_ event: HeadingEvent) {
        guard case .heading(let heading) = event else { return }
        let now = ContinuousClock.now
        shared.withLock { shared in
            let rate = shared.rateOfTurn.rate(after: heading).map { $0 / 60 }
            shared.latest = (NMEA2000Node.HeadingSample(heading, rateOfTurn: rate), now)
        }
        signal()
    }

    // MARK: The thread

    /// The node's state on its thread.
    private struct Loop {
        var node: NMEA2000Node
        var link: (any CANLink)?
        var queue = CANFrameQueue()
        var rate: OutputRate<(sample: NMEA2000Node.HeadingSample, at: ContinuousClock.Instant)>
        var reopenAt: Duration = .zero
        var backoff: Duration = .seconds(1)
        var lastOpenFailure: String?
        var retryAt: Duration?
        var lastProgress: Duration = .zero
        var isStuck = false
        var lastState: AddressClaim.State?
        var lastAddress: UInt8?
        var movesSinceLog = 0
        var lastMoveLog: Duration?
        var headingQueuedAt: ContinuousClock.Instant?
        var framesWritten = 0
        var claimedAt: Duration?
        var echoWarned = false
        /// When the link was opened: one that ends sooner than ``stableAfter`` (a gateway that
        /// accepts and closes, or resets) is opened again with the backoff, not at once.
        var openedAt: Duration?
        /// Each reason a link ended said once, then a line a minute with the count.
        var losses = RepeatedReasonGate()
        /// Whether the next opening is said: not while the losses are held back.
        var announcesOpening = true
    }

    /// How long a link must last for the next loss to start the backoff again at 1 s.
    static let stableAfter: Duration = .seconds(30)

    private func loop() {
        var state = Loop(
            node: NMEA2000Node(
                identity: configuration.identity, preferred: configuration.preferredAddress,
                heartbeatInterval: .milliseconds(Int64((configuration.settings.heartbeat * 1000).rounded())),
                dataOnly: !configuration.interface.isFullNode
            ),
            rate: OutputRate(maximumHertz: configuration.settings.rate)
        )
        while !shared.withLock({ $0.stopped }) {
            var now = origin.duration(to: .now)
            if state.link == nil, now >= state.reopenAt { open(&state, at: now) }
            if state.link != nil {
                if let latest = shared.withLock({ shared in defer { shared.latest = nil }; return shared.latest }),
                    let offered = state.rate.offer(latest, at: now)
                {
                    send(offered, &state, at: now)
                }
                if let due = state.rate.due(at: now) { send(due, &state, at: now) }
                if let deadline = state.node.nextDeadline, now >= deadline { enqueue(state.node.tick(at: now), &state, at: now) }
                flush(&state, at: now)
                report(&state, at: now)
            }
            // Wait for the wake pipe, the link, or the next deadline.
            now = origin.duration(to: .now)
            var deadlines: [Duration] = [now + .seconds(1)]
            if state.link == nil { deadlines.append(state.reopenAt) }
            if let deadline = state.node.nextDeadline, state.link != nil { deadlines.append(deadline) }
            if let deadline = state.rate.nextDeadline { deadlines.append(deadline) }
            if let retry = state.retryAt { deadlines.append(retry) }
            if !state.queue.isEmpty, !state.isStuck { deadlines.append(state.lastProgress + Self.stuckAfter) }
            let wait = max(.zero, deadlines.min()! - now)
            let milliseconds = wait.pollMilliseconds
            var fds = [pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
            if let link = state.link { fds.append(pollfd(fd: link.descriptor, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&fds, nfds_t(fds.count), milliseconds)
            if fds[0].revents != 0 { wake.drain() }
            if fds.count > 1, fds[1].revents != 0, let link = state.link {
                now = origin.duration(to: .now)
                var heard: [CANFrame] = []
                let ended = link.read { heard.append($0) }
                for frame in heard { hear(frame, &state, at: now) }
                if let ended { lose(&state, ended, at: now) }
            }
        }
        state.link?.close()
        localNode.clear()
        address?.set(to: 254)
        claimed?.set(to: 0)
        metrics.state.withLock { $0 = "stopped" }
    }

    private func open(_ state: inout Loop, at now: Duration) {
        do throws(PortFailure) {
            let link: any CANLink = if let linkOpener {
                try linkOpener(wake.descriptor)
            } else {
                switch configuration.interface {
                case .socketCAN(let interface): try SocketCANLink(interface: interface)
                case .yachtDevicesRaw(let host, let port): try YachtDevicesRawLink(host: host, port: port, wake: wake.descriptor)
                case .actisense(let device, let baud): try ActisenseLink(path: device, baud: baud)
                }
            }
            state.link = link
            state.openedAt = now
            state.lastOpenFailure = nil
            state.lastProgress = now
            state.queue.removeAll()
            state.lastState = nil
            if state.node.isDataOnly {
                logger.notice(
                    "NMEA 2000: data only through \(link.name): the NGT-1 sends under its own address and NAME, and only the PGNs in its transmit list (enable 127250, 127251, 127257 and 127258 with Actisense NMEA Reader)"
                )
                metrics.state.withLock { $0 = "data only through \(link.name), under the gateway's own address and NAME" }
                return
            }
            if state.announcesOpening { logger.notice(
                "NMEA 2000: on \(link.name), claiming address \(state.node.address) as NAME \(configuration.identity.name) (class \(configuration.identity.name.deviceClass), function \(configuration.identity.name.deviceFunction))"
            ) }
            enqueue(state.node.start(at: now), &state, at: now)
        } catch {
            // Stopped while connecting: no failure to report.
            guard !shared.withLock({ $0.stopped }) else { return }
            let reason = error.reason
            // Said once per reason: a bus that stays down does not fill the journal.
            if reason != state.lastOpenFailure { logger.error("NMEA 2000: \(reason); trying again, 1 s doubling to 30 s between tries (said again when the reason changes)") }
            state.lastOpenFailure = reason
            metrics.state.withLock { $0 = "no link: \(reason)" }
            state.reopenAt = now + state.backoff
            state.backoff = min(.seconds(30), state.backoff * 2)
        }
    }

    private func lose(_ state: inout Loop, _ reason: String, at now: Duration) {
        state.link?.close()
        localNode.clear()
        state.link = nil
        state.queue.removeAll()
        state.retryAt = nil
        state.isStuck = false
        // A link that lasted starts the backoff again; one that ended at once (a gateway that accepts
        // and closes, or resets) waits 1 s doubling to 30 s, as a link that cannot be opened does.
        if let openedAt = state.openedAt, now - openedAt >= Self.stableAfter {
            state.backoff = .seconds(1)
            state.losses.reset()
        }
        state.openedAt = nil
        let delay = state.backoff
        state.backoff = min(.seconds(30), state.backoff * 2)
        let seconds = delay.components.seconds
        if let line = state.losses.admit(reason, at: .now) {
            logger.error("NMEA 2000: \(line); opening it again in \(seconds) s, then claiming again (1 s doubling to 30 s while it keeps ending)")
            state.announcesOpening = true
        } else {
            state.announcesOpening = false
        }
        metrics.state.withLock { $0 = "no link: \(reason)" }
        address?.set(to: 254)
        claimed?.set(to: 0)
        state.lastOpenFailure = reason
        state.reopenAt = now + delay
    }

    private func send(_ latest: (sample: NMEA2000Node.HeadingSample, at: ContinuousClock.Instant), _ state: inout Loop, at now: Duration) {
        let frames = state.node.send(latest.sample, at: now)
        guard !frames.isEmpty else { return }
        if state.headingQueuedAt == nil { state.headingQueuedAt = latest.at }
        enqueue(frames, &state, at: now, expires: now + Self.headingLifetime)
    }

    private func enqueue(_ frames: [CANFrame], _ state: inout Loop, at now: Duration, expires: Duration? = nil) {
        guard !frames.isEmpty else { return }
        // A claim: nothing else goes out for 250 ms, nothing from the old address at all.
        if frames.contains(where: { $0.identifier.pgn == NMEA2000PGN.addressClaim }) {
            metrics.messagesDropped.increment(by: Int64(state.queue.removeAllButClaims()))
        }
        let dropped = state.queue.append(frames, expires: expires)
        if dropped > 0 { metrics.messagesDropped.increment(by: Int64(dropped)) }
    }

    private func hear(_ frame: CANFrame, _ state: inout Loop, at now: Duration) {
        let answers = frame.withUnsafeBytes { payload in
            state.node.receive(
                NMEA2000Message(
                    priority: frame.identifier.priority, pgn: frame.identifier.pgn, source: frame.identifier.source,
                    destination: frame.identifier.destination, payload: payload
                ),
                at: now
            )
        }
        enqueue(answers, &state, at: now)
    }

    private func flush(_ state: inout Loop, at now: Duration) {
        if let retry = state.retryAt, now < retry { return }
        state.retryAt = nil
        let expired = state.queue.removeExpired(at: now)
        if expired > 0 { metrics.messagesDropped.increment(by: Int64(expired)) }
        if state.queue.isEmpty { state.lastProgress = now }
        // Bounded: the queue's frames at most.
        while let frame = state.queue.next, let link = state.link {
            switch link.write(frame) {
            case .written:
                state.queue.removeNext()
                state.lastProgress = now
                state.framesWritten += 1
                if frame.identifier.pgn == NMEA2000PGN.addressClaim { state.node.claimSent(at: origin.duration(to: .now)) }
                if frame.identifier.pgn == NMEA2000PGN.heartbeat { state.node.heartbeatSent(at: origin.duration(to: .now)) }
                if frame.identifier.pgn == NMEA2000PGN.vesselHeading {
                    metrics.messagesSent.increment()
                    if let queuedAt = state.headingQueuedAt {
                        writeLatency?.record(ContinuousClock.now - queuedAt)
                        state.headingQueuedAt = nil
                    }
                }
                if state.isStuck {
                    state.isStuck = false
                    logger.notice("NMEA 2000: the bus on \(link.name) takes frames again")
                }
            case .full:
                state.retryAt = now + (state.isStuck ? Self.stuckRetryAfter : Self.retryAfter)
                if !state.isStuck, now - state.lastProgress >= Self.stuckAfter {
                    state.isStuck = true
                    logger.error(
                        "NMEA 2000: the bus on \(link.name) has taken no frame for \(Self.stuckAfter) (no other node to acknowledge them? a cable out? the gateway's filter?); the newest headings wait, older ones are dropped"
                    )
                }
                return
            case .failed(let reason):
                lose(&state, reason, at: now)
                return
            }
        }
    }

    /// Logs and shows what changed in the claim: won, moved (at most a line every 10 s, with the count), lost every address.
    private func report(_ state: inout Loop, at now: Duration) {
        let node = state.node
        guard !node.isDataOnly else { return }
        let current = node.claim.state
        guard current != state.lastState || node.address != state.lastAddress else {
            checkEcho(&state, at: now)
            return
        }
        let name = state.link?.name ?? "the bus"
        switch current {
        case .claimed:
            state.claimedAt = now
            if node.address != state.lastAddress || state.lastState != .claimed {
                logger.notice("NMEA 2000: address \(node.address) claimed on \(name); 127250 at up to \(configuration.settings.rate) Hz")
            }
            do { try store?.keep(address: node.address) } catch { logger.warning("NMEA 2000: cannot keep address \(node.address): \(error.localizedDescription)") }
        case .claiming:
            if let previous = state.lastAddress, previous != node.address {
                state.movesSinceLog += 1
                if state.lastMoveLog.map({ now - $0 >= .seconds(10) }) ?? true {
                    logger.warning("NMEA 2000: a lower NAME took address \(previous); claiming \(node.address) (\(state.movesSinceLog) move(s) since the last line)")
                    state.movesSinceLog = 0
                    state.lastMoveLog = now
                }
            }
        case .cannotClaim:
            logger.error("NMEA 2000: every address is held by a lower NAME: quiet at 254, sending nothing")
        }
        state.lastState = current
        state.lastAddress = node.address
        if current == .cannotClaim { localNode.clear() } else { localNode.set(address: node.address, name: configuration.identity.name.rawValue) }
        address?.set(to: Double(node.address))
        claimed?.set(to: current == .claimed ? 1 : 0)
        let phrase = switch current {
        case .claimed: "address \(node.address), claimed"
        case .claiming: "claiming address \(node.address)"
        case .cannotClaim: "no address (254): every one is held by a lower NAME"
        }
        metrics.state.withLock { $0 = "\(phrase) on \(name), NAME \(configuration.identity.name)" }
    }

    /// A gateway that echoes none of the node's frames drops them (not in RAW mode, or its filter): said once.
    private func checkEcho(_ state: inout Loop, at now: Duration) {
        guard !state.echoWarned, let link = state.link as? YachtDevicesRawLink, let claimedAt = state.claimedAt,
            now - claimedAt >= .seconds(5), state.framesWritten >= 10, link.echoes == 0
        else { return }
        state.echoWarned = true
        logger.warning(
            "NMEA 2000: \(link.name) has echoed none of \(state.framesWritten) frames: is the gateway in RAW mode, and does its transmit filter pass them?"
        )
    }
}
