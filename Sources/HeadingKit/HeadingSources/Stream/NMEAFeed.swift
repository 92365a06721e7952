// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
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
        var runningReaders = 0
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
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
            let isStopped = state.withLock { state in
                if state.runningReaders == 0 { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if isStopped { continuation.resume() }
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
    fileprivate func ended() {
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
            state.runningReaders += 1
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
    fileprivate var taps: [any NMEAFeedTap] {
        state.withLock { state in state.taps.compactMap(\.tap) }
    }

    fileprivate func setChosenBaud(_ baud: Int) {
        state.withLock { $0.chosenBaud = baud }
    }

    private func readerEnded() {
        let (waiters, endWaiters) = state.withLock { state in
            state.runningReaders -= 1
            guard state.runningReaders == 0 else { return ([CheckedContinuation<Void, Never>](), [CheckedContinuation<Bool, Never>]()) }
            if state.signal == nil { state.hasStopped = true }
            defer {
                state.stopWaiters = []
                state.endWaiters = []
            }
            return (state.stopWaiters, state.endWaiters)
        }
        for waiter in waiters { waiter.resume() }
        for waiter in endWaiters { waiter.resume(returning: false) }  // stopped: only a stop ends a reader
    }
}

/// One reader thread's work: open, read, split into lines, hand them over, reopen — until its signal.
private struct NMEAFeedReader: Sendable {
    let configuration: NMEAFeed.Configuration
    let signal: StopSignal
    let feed: NMEAFeed

    var threadName: String {
        switch configuration.endpoint.transport {
        case .serial(let path, _): "nmea:\(path.split(separator: "/").last ?? "")"
        case .tcp(_, let port): "nmea:tcp\(port)"
        case .udp(_, let port): "nmea:udp\(port)"
        case .standardInput: "nmea:stdin"
        case .childProcess(let path, _): "nmea:\(path.split(separator: "/").last ?? "")"
        case .socketCAN(let interface): "n2k:\(interface)"
        }
    }

    private var milliseconds: Int32 {
        let timeout = configuration.readTimeout.components
        return Int32(clamping: timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000)
    }

    func run() {
        var backoff = configuration.backoff
        var generator = SystemRandomNumberGenerator()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        var announcedFailure: String?
        while !signal.isStopped {
            let failure: ByteStreamFailure
            do throws(ByteStreamFailure) {
                let stream = try open()
                defer { stream.close() }
                announcedFailure = nil
                configuration.logger.notice("\(configuration.endpoint): open")
                for tap in feed.taps { tap.feedOpened(at: .now) }
                failure = read(stream, into: buffer, backoff: &backoff)
            } catch {
                failure = error
            }
            guard !signal.isStopped else { return }
            if failure.isFinal {
                for tap in feed.taps { tap.feedFailed(failure, retryIn: nil) }
                configuration.logger.notice("\(configuration.endpoint): \(failure.reason)")
                feed.ended()
                // Nothing more will come: wait for the stop, still ticking the sources' timers.
                while !signal.wait(seconds: 0.25) { for tap in feed.taps { tap.feedTick(at: .now) } }
                return
            }
            let delay = backoff.nextDelay(using: &generator)
            for tap in feed.taps { tap.feedFailed(failure, retryIn: delay) }
            if announcedFailure != failure.reason {
                configuration.logger.notice("\(configuration.endpoint): \(failure.reason); retrying")
                announcedFailure = failure.reason
            }
            signal.wait(seconds: delay)
        }
    }

    private func open() throws(ByteStreamFailure) -> any ByteStream {
        switch configuration.endpoint.transport {
        case .serial(let path, let baud):
            switch baud {
            case .fixed(let rate): return try SerialLineStream(path: path, baud: rate, writable: configuration.endpoint.framing == .actisense)
            case .automatic: return try probe(path)
            }
        case .tcp(let host, let port):
            return try TCPClientStream(host: host, port: port, timeout: configuration.connectTimeout, signal: signal)
        case .udp(let address, let port):
            return try UDPListenerStream(address: address, port: port)
        case .standardInput:
            return StandardInputStream()
        case .childProcess(let path, let arguments):
            return try ChildProcessStream(path: path, arguments: arguments, logger: configuration.logger)
        case .socketCAN(let interface):
            return try SocketCANStream(interface: interface)
        }
    }

    /// How often an Actisense NGT-1 is sent its start-up message again.
    private static let actisenseStartupInterval: Duration = .seconds(20)

    /// `baud=auto`: listens at each rate in turn until a sentence with a right checksum arrives.
    private func probe(_ path: String) throws(ByteStreamFailure) -> SerialLineStream {
        let line = try SerialLineStream(path: path, baud: NMEAStreamEndpoint.baudRates[0])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
        defer { buffer.deallocate() }
        for rate in NMEAStreamEndpoint.baudRates {
            try line.setSpeed(rate)
            var assembler = LineAssembler(maximumLineLength: NMEASentence.maximumLength)
            let deadline = ContinuousClock.now.advanced(by: configuration.baudProbeTime)
            var found = false
            while !found, ContinuousClock.now < deadline, !signal.isStopped {
                switch line.read(into: buffer, waitingAtMost: milliseconds, wakingOn: signal.wakeDescriptor) {
                case .bytes(let count, _):
                    assembler.append(UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)) { piece in
                        if case .line(let bytes) = piece, let sentence = try? NMEASentence(bytes), sentence.hasChecksum { found = true }
                    }
                case .timedOut:
                    continue
                case .ended(let failure):
                    throw failure
                }
            }
            if found {
                feed.setChosenBaud(rate)
                configuration.logger.notice("\(path): baud=auto chose \(rate) baud (sentences with right checksums arrive)")
                return line
            }
            if signal.isStopped { break }
        }
        line.close()
        throw ByteStreamFailure(
            code: .sourceUnavailable,
            reason: "\(path): no sentence with a right checksum at any of \(NMEAStreamEndpoint.baudRates.map(String.init).joined(separator: ", ")) baud"
        )
    }

    /// Reads until the transport ends or the signal is set. The backoff starts again from its
    /// first delay once bytes arrive: a server that accepts and closes at once, or a driver that
    /// exits at start, is retried ever more slowly, not four times a second for ever.
    private func read(
        _ stream: any ByteStream, into buffer: UnsafeMutableRawBufferPointer, backoff: inout ReconnectBackoff
    ) -> ByteStreamFailure {
        var hasBytes = false
        var assemblers: [UInt64: Splitter] = [:]
        var single = Splitter(configuration.endpoint.framing, maximumLineLength: configuration.maximumLineLength)
        let isDatagram = if case .udp = configuration.endpoint.transport { true } else { false }
        var lastBytesAt = ContinuousClock.now
        let limit = configuration.maximumLineLength
        let isActisense = configuration.endpoint.framing == .actisense
        var lastStartupAt: ContinuousClock.Instant?
        while !signal.isStopped {
            if isActisense, lastStartupAt.map({ ContinuousClock.now - $0 >= Self.actisenseStartupInterval }) ?? true {
                // The NGT-1 passes every PGN only once told to; told again now and then, as it forgets.
                if !stream.write(ActisenseFrameSplitter.startupMessage), lastStartupAt == nil {
                    configuration.logger.notice("\(configuration.endpoint): cannot send the NGT-1 its start-up message; it may pass only some PGNs")
                }
                lastStartupAt = .now
            }
            let result = stream.read(into: buffer, waitingAtMost: milliseconds, wakingOn: signal.wakeDescriptor)
            let now = ContinuousClock.now
            let taps = feed.taps
            switch result {
            case .bytes(let count, let sender):
                lastBytesAt = now
                if !hasBytes {
                    hasBytes = true
                    backoff.reset()
                }
                let date = Date()
                if isDatagram, assemblers.count >= Self.maximumSenders, assemblers[sender] == nil {
                    assemblers.removeAll(keepingCapacity: true)  // a flood of senders: start again, memory flat
                }
                // A stream has one sender: its splitter stays in `single`, no dictionary per read.
                var assembler = isDatagram
                    ? assemblers.removeValue(forKey: sender) ?? Splitter(configuration.endpoint.framing, maximumLineLength: limit)
                    : single
                let bytes = UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
                let deliver = { (piece: FeedPiece) in for tap in taps { tap.feedReceived(piece, at: date) } }
                assembler.append(bytes, deliver)
                if isDatagram { assembler.flushCompleteSentence(deliver) }
                if !isDatagram {
                    single = assembler
                } else if assembler.hasPartial {
                    assemblers[sender] = assembler
                }
                for tap in taps { tap.feedReadEnded() }
            case .timedOut:
                if let timeout = configuration.endpoint.noDataTimeout, case .tcp = configuration.endpoint.transport,
                    now - lastBytesAt >= timeout
                {
                    assemblers[0] = single
                    dropPartialLines(&assemblers, taps)
                    return ByteStreamFailure(code: .sourceUnavailable, reason: "\(configuration.endpoint) sent nothing for \(timeout) (no_data_timeout); reconnecting")
                }
            case .ended(let failure):
                if !isDatagram { assemblers[0] = single }
                dropPartialLines(&assemblers, taps)
                return failure
            }
            for tap in taps { tap.feedTick(at: now) }
        }
        return ByteStreamFailure(code: .sourceUnavailable, reason: "stopped")
    }

    /// The most senders whose partial lines are kept at once (UDP).
    private static let maximumSenders = 64

    /// A connection's partial line is never joined to the next one's bytes: dropped, as a fragment.
    private func dropPartialLines(_ assemblers: inout [UInt64: Splitter], _ taps: [any NMEAFeedTap]) {
        let date = Date()
        for key in Array(assemblers.keys) {
            let dropped = assemblers[key]!.discard()
            if dropped > 0 { for tap in taps { tap.feedReceived(.stream(.fragment(length: dropped)), at: date) } }
        }
        for tap in taps { tap.feedReadEnded() }
        assemblers.removeAll()
    }
}

/// A sender's splitter: lines, UBX frames and lines, Actisense frames, or SocketCAN's records.
private enum Splitter {
    case lines(LineAssembler)
    case ubx(UBXFrameSplitter)
    case actisense(ActisenseFrameSplitter)
    case socketCAN

    init(_ framing: NMEAStreamEndpoint.Framing, maximumLineLength: Int) {
        switch framing {
        case .nmea, .ydraw: self = .lines(LineAssembler(maximumLineLength: maximumLineLength))
        case .ubx: self = .ubx(UBXFrameSplitter(maximumLineLength: maximumLineLength))
        case .actisense: self = .actisense(ActisenseFrameSplitter())
        case .socketCAN: self = .socketCAN
        }
    }

    var hasPartial: Bool {
        switch self {
        case .lines(let assembler): assembler.hasPartialLine
        case .ubx(let splitter): splitter.hasPartial
        case .actisense(let splitter): splitter.pendingCount > 0
        case .socketCAN: false
        }
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (FeedPiece) -> Void) {
        switch self {
        case .lines(var assembler):
            self = .socketCAN  // the assembler is mutated uniquely, not copied
            assembler.append(bytes) { body(.stream($0)) }
            self = .lines(assembler)
        case .ubx(var splitter):
            self = .socketCAN
            splitter.append(bytes) { body(.stream($0)) }
            self = .ubx(splitter)
        case .actisense(var splitter):
            self = .socketCAN
            splitter.append(bytes) { piece in
                switch piece {
                case .message(let message, _): body(.nmea2000Message(message))
                case .bad(let reason): body(.badFrame(reason: reason))
                case .other: break  // the NGT-1's own messages
                }
            }
            self = .actisense(splitter)
        case .socketCAN:
            SocketCANRecords.forEach(in: bytes) { count in
                body(.badFrame(reason: "the kernel dropped \(count) CAN frame\(count == 1 ? "" : "s") for want of room: headingd fell behind the bus"))
            } _: { frame, time in
                body(.canFrame(frame, receivedAt: time))
            }
        }
    }

    mutating func flushCompleteSentence(_ body: (FeedPiece) -> Void) {
        guard case .lines(var assembler) = self else { return }
        assembler.flushCompleteSentence { body(.stream($0)) }
        self = .lines(assembler)
    }

    mutating func discard() -> Int {
        switch self {
        case .lines(var assembler):
            defer { self = .lines(assembler) }
            return assembler.discard()
        case .ubx(var splitter):
            defer { self = .ubx(splitter) }
            return splitter.discard()
        case .actisense(var splitter):
            defer { self = .actisense(splitter) }
            return splitter.discard()
        case .socketCAN:
            return 0
        }
    }
}
