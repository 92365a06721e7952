// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts
public import Logging
import Synchronization
import NMEA2000

/// One NMEA 0183 stream — a serial line, a TCP feed, UDP datagrams or standard input — read once
/// by a thread of its own, however many ``StreamHeadingSource``s take their sentences from it.
///
/// A multiplexer carries a gyro (`HE`), a fluxgate (`HC`) and a GNSS (`GP`) on one socket: give
/// one feed to three sources, each selecting its instrument, and the socket is opened once. The
/// feed runs while at least one of its sources is started, and closes when the last one stops.
///
/// A transport that cannot be opened, or that ends, is a fault for every source, and it is opened
/// again after ``Configuration/backoff`` (0.25 s doubling to 5 s, jittered), forever, until its
/// sources stop — except standard input, whose end is final. A partial line left by a broken
/// connection is dropped (a fault), never joined to the next connection's bytes. A TCP connection
/// that brings no byte for ``NMEAStreamEndpoint/noDataTimeout`` is closed and made again. Lines
/// are bounded (``Configuration/maximumLineLength``): memory stays flat whatever a peer sends.
///
/// `Sendable`: its state is behind a lock; the transport belongs to the reader thread.
public final class NMEAFeed: Sendable {
    /// What to read, and how.
    public struct Configuration: Sendable {
        /// Where the stream comes from.
        public var endpoint: NMEAStreamEndpoint
        /// The delays between attempts to open it.
        public var backoff: ReconnectBackoff
        /// How long one wait for bytes lasts: stops and the sources' timers are seen within it.
        public var readTimeout: Duration
        /// How long a TCP connection attempt may wait for an answer.
        public var connectTimeout: Duration
        /// How long `baud=auto` listens at each rate for a sentence with a right checksum.
        public var baudProbeTime: Duration
        /// The longest line kept, in bytes; a longer one is a `malformedInput` fault. Default 1024.
        public var maximumLineLength: Int
        /// Where opening, losing and the chosen baud rate are logged (notice level).
        public var logger: Logger
        /// This process's own NMEA 2000 node on the bus read, if it has one there: its frames are
        /// never taken for a device's.
        package var localNode: NMEA2000LocalNode?

        /// Creates a configuration.
        /// - Parameters:
        ///   - endpoint: Where the stream comes from.
        ///   - backoff: The delays between attempts to open it. Default 0.25 s doubling to 5 s, ±20 %.
        ///   - readTimeout: How long one wait lasts. Default 250 ms.
        ///   - connectTimeout: How long a TCP connection attempt waits. Default 3 s.
        ///   - baudProbeTime: How long `baud=auto` listens at each rate. Default 2 s.
        ///   - maximumLineLength: The longest line kept. Default 1024 bytes.
        ///   - logger: Where opening and losing the transport are logged. Default: nowhere.
        public init(
            endpoint: NMEAStreamEndpoint,
            backoff: ReconnectBackoff = ReconnectBackoff(),
            readTimeout: Duration = .milliseconds(250),
            connectTimeout: Duration = .seconds(3),
            baudProbeTime: Duration = .seconds(2),
            maximumLineLength: Int = 1024,
            logger: Logger = Logger(label: "HeadingKit.NMEAFeed", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.endpoint = endpoint
            self.backoff = backoff
            self.readTimeout = readTimeout
            self.connectTimeout = connectTimeout
            self.baudProbeTime = baudProbeTime
            self.maximumLineLength = max(82, maximumLineLength)
            self.logger = logger
        }
    }

    private struct WeakTap {
        weak var tap: (any NMEAFeedTap)?
        let identifier: ObjectIdentifier
    }

    private struct State {
        /// The sources reading, in the order they started: an array, not a dictionary, so that
        /// the reader's copy of it once a read costs no hashing.
        var taps: [WeakTap] = []
        var signal: StopSignal?
        var chosenBaud: Int?
        var readers = RunningReaders()
        /// Whether the transport ended for good (standard input at its end).
        var hasEnded = false
        /// Whether a reader ran and was stopped (by its last source stopping), since the last start.
        var hasStopped = false
        var endWaiters: [CheckedContinuation<Bool, Never>] = []
    }

    /// What this feed reads, and how.
    public let configuration: Configuration
    private let state = Mutex(State())

    /// Creates a feed; nothing is opened until a source reading from it starts.
    /// - Parameter configuration: What to read, and how.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    deinit {
        state.withLock { $0.signal?.stop() }
    }

    /// The endpoint's URL.
    public var name: String { configuration.endpoint.description }

    /// The baud rate `baud=auto` chose, once it has; `nil` before, and for a fixed rate.
    public var chosenBaud: Int? { state.withLock { $0.chosenBaud } }

    /// Waits until the reader thread has closed the transport and ended, after the last source
    /// stopped. Returns at once when no reader runs.
    public func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            if !state.withLock({ $0.readers.keep(continuation) }) { continuation.resume() }
        }
    }

    /// Waits until the transport has ended for good — standard input at its end; nothing else ends
    /// on its own — or the reader, once started, has stopped.
    /// - Returns: `true` when the transport ended, `false` when the reader stopped first.
    public func waitUntilEnded() async -> Bool {
        await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLock { state in
                if state.hasEnded { return true }
                if state.hasStopped { return false }
                state.endWaiters.append(continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Records that the transport ended for good and wakes those waiting for it.
    func ended() {
        let waiters = state.withLock { state in
            state.hasEnded = true
            defer { state.endWaiters = [] }
            return state.endWaiters
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Adds a source to those the lines go to, and starts reading if none was.
    package func attach(_ tap: any NMEAFeedTap) {
        let signal: StopSignal? = state.withLock { state in
            state.taps.removeAll { $0.identifier == ObjectIdentifier(tap) }
            state.taps.append(WeakTap(tap: tap, identifier: ObjectIdentifier(tap)))
            guard state.signal == nil else { return nil }
            let signal = StopSignal(wakesPoll: true)
            state.signal = signal
            state.readers.started()
            state.hasStopped = false
            return signal
        }
        guard let signal else { return }
        let reader = NMEAFeedReader(configuration: configuration, signal: signal, feed: self)
        let thread = Thread {
            setThreadName(reader.threadName)
            reader.run()
            self.readerEnded()
        }
        thread.start()
    }

    /// Removes a source; the last one out stops the reader (within one read timeout).
    /// - Parameter tap: The source's `ObjectIdentifier` (a source going away can still give it).
    package func detach(_ tap: ObjectIdentifier) {
        state.withLock { state in
            state.taps.removeAll { $0.identifier == tap || $0.tap == nil }
            if state.taps.isEmpty {
                state.signal?.stop()
                state.signal = nil
            }
        }
    }

    /// The sources reading now.
    var taps: [any NMEAFeedTap] {
        state.withLock { state in state.taps.compactMap(\.tap) }
    }

    func setChosenBaud(_ baud: Int) {
        state.withLock { $0.chosenBaud = baud }
    }

    private func readerEnded() {
        let (waiters, endWaiters) = state.withLock { state in
            let waiters = state.readers.ended()
            guard state.readers.count == 0 else { return (waiters, [CheckedContinuation<Bool, Never>]()) }
            if state.signal == nil { state.hasStopped = true }
            defer { state.endWaiters = [] }
            return (waiters, state.endWaiters)
        }
        for waiter in waiters { waiter.resume() }
        for waiter in endWaiters { waiter.resume(returning: false) }  // stopped: only a stop ends a reader
    }
}
