// headingd — HeadingKitGPSD
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import HeadingKit
import HeadingPorts
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Headings from a live gpsd, through libgps, with reconnection.
///
/// A reader thread of its own (named `gpsd:PORT`) (libgps blocks; no Swift concurrency thread ever waits on it)
/// connects with `gps_open`, watches JSON and raw NMEA with `gps_stream`, and reads with
/// `gps_waiting`/`gps_read`. Every message goes through HeadingKit's `HeadingLineDecoder`:
/// - raw NMEA heading sentences (`HDT`, `HDG`, `HDM`, `THS`, `PASHR`, `PTNTHTM`) are parsed by
///   HeadingKit, because gpsd 3.22 drops `THS` and misreads `HDG`; the `ATT` report gpsd makes
///   of a sentence just before it is a duplicate and is not delivered a second time;
/// - `ATT` reports with no NMEA sentence before them (binary devices) are delivered as they are;
/// - course over ground (`RMC`/`VTG`, else `TPV` `track`) only at or above
///   ``Configuration/minimumCourseSpeed``;
/// - out-of-range values are faults, never wrapped onto the circle;
/// - `DEVICE` with `activated: 0` is a `deviceLost` fault naming the device.
///
/// Headings are stamped with the time they were received (gpsd 3.22's `ATT` carries no time).
///
/// A gpsd that streams but gives no heading for ``Configuration/silenceTimeout`` after answering
/// the watch (gpsd 3.22 drops a gyrocompass's `HE` talker without a word) is one `stale` fault
/// saying what did arrive, so that "no heading sensor" is not mistaken for "all quiet".
///
/// A refused, closed or broken connection is a `sourceUnavailable` fault saying when the next
/// attempt is; attempts follow ``Configuration/backoff`` (0.25 s doubling to 5 s, jittered)
/// forever, until ``stop()``. A connection attempt that gets no answer within
/// ``Configuration/connectTimeout`` (a firewall that drops packets) is such a fault too, and
/// ``stop()`` takes effect within one ``Configuration/readTimeout`` whatever the socket is doing.
///
/// Authorization is what the system says, and only trying tells: it stays `notDetermined` until
/// the first connection attempt (``requestAuthorization()`` answers at once only once one has
/// decided). A connection refused with `EACCES` or `EPERM` (a firewall or a sandbox) is a
/// `permissionDenied` fault, then `HeadingAuthorizationStatus.denied`; a connection that
/// succeeds is `HeadingAuthorizationStatus.authorized`.
public final class GPSDHeadingSource: HeadingSource, LineCountingSource, CalibrationReporting, Sendable {
    /// Which gpsd to read, and how.
    public struct Configuration: Sendable, Hashable {
        /// Where gpsd listens, and the one device to watch, if any.
        public var endpoint: GPSDEndpoint
        /// The name headings and faults carry. Default: the endpoint's URL.
        public var sourceName: String
        /// Below this speed, in metres per second, course over ground gives no heading. Default 0.5 (about 1 knot).
        public var minimumCourseSpeed: Double
        /// How long one wait for a message lasts; ``GPSDHeadingSource/stop()`` takes effect within it.
        public var readTimeout: Duration
        /// The delays between connection attempts.
        public var backoff: ReconnectBackoff
        /// How long gpsd may take to answer the watch request after accepting the connection; one
        /// that has not answered by then (silent, or dripping bytes) is a `sourceUnavailable` fault,
        /// and the source reconnects. Default 5 s. Once watching, silence is the device's, not
        /// gpsd's: a `HeadingProcessor` calls that stale.
        public var answerTimeout: Duration
        /// Whether an NMEA sentence without a checksum is refused as malformed. Default `false`.
        public var requiresChecksum: Bool
        /// How long a connection attempt may wait for gpsd's host to answer; then it is a
        /// `sourceUnavailable` fault and the backoff. Default 3 s.
        public var connectTimeout: Duration
        /// How long gpsd may stream, after it answered the watch, without a heading before the
        /// source says so: one `stale` fault naming what did arrive (gpsd 3.22 drops a
        /// gyrocompass's `HE` talker without a word). `nil` never. Default 2 s.
        public var silenceTimeout: Duration?

        /// Creates a configuration.
        /// - Parameters:
        ///   - endpoint: Where gpsd listens. Default: 127.0.0.1:2947, every device.
        ///   - sourceName: The name headings and faults carry. Default: the endpoint's URL.
        ///   - minimumCourseSpeed: Minimum speed for course over ground, m/s. Default 0.5.
        ///   - readTimeout: How long one wait for a message lasts. Default 250 ms.
        ///   - backoff: The delays between connection attempts. Default 0.25 s doubling to 5 s, ±20 %.
        ///   - answerTimeout: How long gpsd may take to answer the watch request. Default 5 s.
        ///   - requiresChecksum: Whether a sentence without a checksum is refused. Default `false`.
        ///   - connectTimeout: How long a connection attempt may wait for an answer. Default 3 s.
        ///   - silenceTimeout: How long watching without a heading before a `stale` fault. Default 2 s.
        public init(
            endpoint: GPSDEndpoint = .default,
            sourceName: String? = nil,
            minimumCourseSpeed: Double = 0.5,
            readTimeout: Duration = .milliseconds(250),
            backoff: ReconnectBackoff = ReconnectBackoff(),
            answerTimeout: Duration = .seconds(5),
            requiresChecksum: Bool = false,
            connectTimeout: Duration = .seconds(3),
            silenceTimeout: Duration? = .seconds(2)
        ) {
            self.endpoint = endpoint
            self.sourceName = sourceName ?? endpoint.description
            self.minimumCourseSpeed = minimumCourseSpeed
            self.readTimeout = readTimeout
            self.backoff = backoff
            self.answerTimeout = answerTimeout
            self.requiresChecksum = requiresChecksum
            self.connectTimeout = connectTimeout
            self.silenceTimeout = silenceTimeout
        }
    }

    /// What the connection to gpsd is doing.
    public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
        /// Not started, or stopped.
        case idle
        /// Connecting; `attempt` counts from 1 since the last connection that worked.
        case connecting(attempt: Int)
        /// Connected, and gpsd has acknowledged the watch: messages flow from here on.
        case watching
        /// Waiting this many seconds before the next attempt.
        case waitingToRetry(seconds: Double)

        /// A short phrase, such as `retrying in 1.0 s`.
        public var description: String {
            switch self {
            case .idle: "idle"
            case .connecting(let attempt): attempt > 1 ? "connecting (attempt \(attempt))" : "connecting"
            case .watching: "watching"
            case .waitingToRetry(let seconds): "retrying in \(String(format: "%.1f", seconds)) s"
            }
        }
    }

    private struct State {
        var signal: StopSignal?
        var connectionState = ConnectionState.idle
        var authorization = HeadingAuthorizationStatus.notDetermined
        var readers = RunningReaders()
        var observers: [Int: ConnectionStateObserver] = [:]
        var nextObserver = 0
        /// Counts the connection's changes: a stream is never given a state older than one it had.
        var generation = 0
        var lineCounts = LineCounts()
        var calibration: CalibrationStatus?

        /// Records a new connection state; the change to deliver once the lock is released, or
        /// `nil` when it is the state already.
        mutating func change(to connectionState: ConnectionState) -> ConnectionStateChange? {
            guard self.connectionState != connectionState else { return nil }
            self.connectionState = connectionState
            generation += 1
            return ConnectionStateChange(state: connectionState, generation: generation, observers: Array(observers.values))
        }
    }

    /// Which gpsd this source reads, and how.
    public let configuration: Configuration
    private let state = HeadingSourceState(State())

    /// `true`: a gpsd that refuses the connection is asked again (with backoff), and reported
    /// authorized once it answers, so the proxy keeps the source running after a refusal.
    public var keepsTryingAfterDenial: Bool { true }

    /// The lines gpsd sent so far (its JSON reports and the raw NMEA it passes on), by result,
    /// as of the last read.
    package var lineCounts: LineCounts { state.withLock { $0.lineCounts } }

    /// Hands over the reader's line counts, once a read.
    fileprivate func update(_ counts: LineCounts) {
        state.withLock { $0.lineCounts = counts }
    }
    /// Creates a source; nothing connects until ``start()``.
    /// - Parameter configuration: Which gpsd to read, and how.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    deinit {
        let observers = state.withLock { state in
            state.signal?.stop()
            return state.observers.values
        }
        for observer in observers { observer.finish() }
    }

    /// The endpoint's URL unless the configuration names it otherwise, such as `gpsd://127.0.0.1:2947`.
    public var name: String { configuration.sourceName }

    /// Receives the source's reports, on its reader thread. Held weakly.
    public var delegate: (any HeadingSourceDelegate)? {
        get { state.delegate }
        set { state.delegate = newValue }
    }

    /// What the connection is doing now.
    public var connectionState: ConnectionState { state.withLock { $0.connectionState } }

    /// The connection's state now and at each change, until the source goes away.
    /// - Returns: A stream that starts with the current state and keeps the newest 64 changes
    ///   for a slow reader.
    public func connectionStates() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self, bufferingPolicy: .bufferingNewest(64))
        let observer = ConnectionStateObserver(continuation)
        let (key, current, generation) = state.withLock { state in
            defer { state.nextObserver += 1 }
            state.observers[state.nextObserver] = observer
            return (state.nextObserver, state.connectionState, state.generation)
        }
        // The state's lock is never held while a stream is given a state, so its end may take it.
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.observers.removeValue(forKey: key) } }
        observer.deliver(current, generation: generation)
        return stream
    }

    /// Waits until the reader thread has closed its connection and ended, after ``stop()``.
    /// Returns at once when no reader runs.
    public func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            if !state.withLock({ $0.readers.keep(continuation) }) { continuation.resume() }
        }
    }

    /// Answers what the last connection attempt decided: `HeadingAuthorizationStatus.denied`
    /// when the system refused it (`EACCES`/`EPERM`), `HeadingAuthorizationStatus.authorized` when
    /// it connected. Before any attempt it answers nothing: the first one, after ``start()``, will.
    public func requestAuthorization() {
        let status = state.withLock { $0.authorization }
        guard status != .notDetermined else { return }
        state.report(.authorizationChanged(status), from: self)
    }

    /// Starts the reader thread, which connects and keeps reconnecting until ``stop()``. Does
    /// nothing while started.
    public func start() {
        let signal: StopSignal? = state.withLock { state in
            guard state.signal == nil else { return nil }
            let signal = StopSignal()
            state.signal = signal
            state.readers.started()
            return signal
        }
        guard let signal else { return }
        let reader = GPSDReader(configuration: configuration, signal: signal) { [weak self] in self }
        let thread = Thread {
            setThreadName("gpsd:\(self.configuration.endpoint.port)")
            reader.run()
            self.readerEnded()
        }
        thread.start()
    }

    /// Stops the reader: returns at once; the reader closes its connection within one
    /// ``Configuration/readTimeout`` (``waitUntilStopped()`` waits for that). No report follows
    /// once the one in flight is delivered.
    public func stop() {
        state.withLock { state in
            state.signal?.stop()
            state.signal = nil
        }
    }

    fileprivate func setConnectionState(_ connectionState: ConnectionState) {
        state.withLock { $0.change(to: connectionState) }?.deliver()
    }

    /// Records an authorization status the system gave, and reports it when it changed.
    fileprivate func systemAuthorization(_ status: HeadingAuthorizationStatus) {
        let changed = state.withLock { state in
            defer { state.authorization = status }
            return state.authorization != status
        }
        if changed { state.report(.authorizationChanged(status), from: self) }
    }

    /// What the compass behind gpsd says of its calibration: `nil` while it says nothing, none
    /// (with the reason) from a magnetometer calibration alarm (`ATT`'s `mag_st` `C`) until a heading
    /// comes without one.
    public var calibrationStatus: CalibrationStatus? { state.withLock { $0.calibration } }

    /// Hands one report from the reader to the delegate; an authorization change is recorded first,
    /// a calibration alarm kept as the calibration's status.
    fileprivate func report(_ report: HeadingSourceReport) {
        switch report {
        case .authorizationChanged(let status):
            systemAuthorization(status)
            return
        case .fault(let fault) where fault.code == .calibrationNeeded:
            calibrationAlarm.store(true, ordering: .relaxed)
            state.withLock { $0.calibration = CalibrationStatus(state: .none, reason: "\(fault.reason) (gpsd mag_st C)") }
        case .heading where calibrationAlarm.load(ordering: .relaxed):
            // The alarm is over: a heading comes only from an ATT without one.
            calibrationAlarm.store(false, ordering: .relaxed)
            state.withLock { $0.calibration = nil }
        default: break
        }
        state.report(report, from: self)
    }

    /// Whether a calibration alarm is in force: one load a heading, not a lock.
    private let calibrationAlarm = Atomic<Bool>(false)

    private func readerEnded() {
        let (waiters, change) = state.withLock { state in
            let waiters = state.readers.ended()
            // The last reader gone and none asked for: idle.
            return (waiters, state.readers.count == 0 && state.signal == nil ? state.change(to: .idle) : nil)
        }
        change?.deliver()
        for waiter in waiters { waiter.resume() }
    }
}

/// One reader thread's work: connect, watch, decode, deliver, reconnect — until its signal.
private struct GPSDReader: Sendable {
    let configuration: GPSDHeadingSource.Configuration
    let signal: StopSignal
    let source: @Sendable () -> GPSDHeadingSource?

    func run() {
        // libgps writes with write(2): a gpsd that just died must give EPIPE, not kill the process.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)

        var decoder = HeadingLineDecoder(
            path: nil, sourceName: configuration.sourceName, minimumCourseSpeed: configuration.minimumCourseSpeed,
            timestamping: .reception, requiresChecksum: configuration.requiresChecksum
        )
        var backoff = configuration.backoff
        var generator = SystemRandomNumberGenerator()
        var attempt = 0
        let timeout = Int32(clamping: configuration.readTimeout.components.seconds * 1_000_000
            + configuration.readTimeout.components.attoseconds / 1_000_000_000_000)
        while !signal.isStopped {
            attempt += 1
            source()?.setConnectionState(.connecting(attempt: attempt))
            let failure: GPSDConnection.Failure
            do throws(GPSDConnection.Failure) {
                let connection = try GPSDConnection(
                    endpoint: configuration.endpoint, connectTimeout: configuration.connectTimeout, signal: signal
                )
                source()?.systemAuthorization(.authorized)
                decoder.restart()
                var messageNumber = 0
                var isWatching = false
                var silence = SilenceWatch()
                // A flood of bad sentences: the first reported, then a summary at most every 10 s.
                var floods = FaultFloodGate()
                defer { connection.close() }
                let connectedAt = ContinuousClock.now
                while !signal.isStopped {
                    try connection.readMessages(waitingAtMost: timeout) { message in
                        messageNumber += 1
                        switch message {
                        case .line(let bytes):
                            if !isWatching, bytes.starts(with: Self.watchReply) {
                                isWatching = true
                                attempt = 0
                                backoff.reset()
                                silence.opened(at: .now)
                                source()?.setConnectionState(.watching)
                            }
                            silence.saw(bytes, address: NMEASentenceSelection.address(of: bytes), taken: true)
                            let report = decoder.decode(bytes, number: messageNumber, receivedAt: Date()).report
                            if case .heading = report { silence.headingDelivered() }
                            deliver(report, through: &floods)
                        case .overlong(let length):
                            let report = decoder.overlongLine(length: length, number: messageNumber, receivedAt: Date()).report
                            decoder.countLine(report)
                            deliver(report, through: &floods)
                        }
                    }
                    source()?.update(decoder.lineCounts)
                    for summary in floods.tick(at: .now).summaries { deliver(.fault(summary)) }
                    if let timeout = configuration.silenceTimeout,
                        let reason = silence.silence(at: .now, timeout: timeout, selection: .all)
                    {
                        deliver(.fault(HeadingFault(code: .stale, source: configuration.sourceName, reason: "gpsd " + reason)))
                    }
                    // A gpsd answers ?WATCH at once; one that has not, within the bound, is not serving.
                    if !isWatching, ContinuousClock.now - connectedAt > configuration.answerTimeout {
                        throw GPSDConnection.Failure(
                            reason: "gpsd at \(configuration.endpoint.host):\(configuration.endpoint.port) accepted the connection "
                                + "but did not answer the watch request within \(configuration.answerTimeout)",
                            isAccessDenied: false
                        )
                    }
                }
                return
            } catch {
                failure = error
            }
            guard !signal.isStopped, let source = source() else { return }
            let delay = backoff.nextDelay(using: &generator)
            source.setConnectionState(.waitingToRetry(seconds: delay))
            let fault = HeadingFault(
                code: failure.isAccessDenied ? .permissionDenied : .sourceUnavailable,
                source: configuration.sourceName,
                reason: "\(failure.reason); retrying in \(String(format: "%.2f", delay)) s"
            )
            // The refusal's fault first, with its reason, then the status it decides (one fault per refusal).
            if !signal.isStopped { source.report(.fault(fault)) }
            if failure.isAccessDenied, !signal.isStopped { source.systemAuthorization(.denied) }
            signal.wait(seconds: delay)
        }
    }

    /// gpsd's answer to `?WATCH`: from here on, messages flow.
    private static let watchReply = Array(#"{"class":"WATCH""#.utf8)

    /// Delivers a report, a fault through the flood gate; before a fault about the device (its
    /// end, a loss), the summary of the bad lines held back.
    private func deliver(_ report: HeadingSourceReport?, through floods: inout FaultFloodGate) {
        guard case .fault(let fault) = report else { return deliver(report) }
        if !FaultFloodGate.floodingCodes.contains(fault.code) {
            for summary in floods.flush(at: .now) { deliver(.fault(summary)) }
        }
        deliver(floods.admit(fault, at: .now).map { .fault($0) })
    }

    private func deliver(_ report: HeadingSourceReport?) {
        guard let report, !signal.isStopped else { return }
        source()?.report(report)
    }
}
