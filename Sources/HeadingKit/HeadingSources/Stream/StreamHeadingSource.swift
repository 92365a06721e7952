// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

package import Foundation
package import HeadingPorts
import Logging
import NMEA2000

/// Headings straight from the instruments' streams: NMEA 0183 (and NMEA 2000, below) from a
/// serial line, a TCP feed, UDP datagrams, standard input or a CAN interface, read by an ``NMEAFeed``, decoded by the same line decoder as a
/// replay (``HeadingLineDecoder``), so every sentence HeadingKit knows is read the same way
/// whatever carries it.
///
/// ```swift
/// let gyro = StreamHeadingSource(endpoint: try NMEAStreamEndpoint(parsing: "serial:///dev/ttyUSB0?baud=4800"))
/// ```
///
/// Several sources may share one feed, each taking its own instrument's sentences
/// (``Configuration/selection``): the feed is read once.
///
/// It reads NMEA 2000 too, when its endpoint carries it: `socketcan://can0`, an Actisense NGT-1
/// (``NMEAStreamEndpoint/Framing/actisense``), a Yacht Devices gateway's RAW
/// (``NMEAStreamEndpoint/Framing/ydraw``). Each device on the bus is a source of its own
/// (``NMEASentenceSelection/device``); the first heard when none is chosen, named in the feed's log.
///
/// Faults: a transport that cannot be opened, or ends, is ``HeadingFault/Code/sourceUnavailable``
/// (a device that went away: ``HeadingFault/Code/deviceLost``), and it is opened again with
/// backoff; a malformed or overlong line (over 1 KiB) is ``HeadingFault/Code/malformedInput`` and
/// skipped; a sentence cut short (a lost datagram, a broken connection) is
/// ``HeadingFault/Code/malformedInput`` and never joined to what follows. Binary data (a receiver in
/// SiRF or UBX mode) is one ``HeadingFault/Code/unsupportedInput`` fault each time the transport
/// opens, not one a line. A flood of bad lines is its first fault, then at most one summary every
/// 10 s counting the rest (``HeadingFault/occurrences``); each opening of the transport starts
/// afresh. A source that is open but
/// has delivered no heading for ``Configuration/silenceTimeout`` raises
/// ``HeadingFault/Code/stale`` once, saying what did arrive ("412 sentences, none with a heading;
/// talkers seen: GP"), so that "no heading sensor" is never mistaken for "all quiet".
///
/// Authorization: a serial device this process may not read (not in the `dialout` group) is a
/// ``HeadingFault/Code/permissionDenied`` fault, then ``HeadingAuthorizationStatus/denied``,
/// when asked and whenever an open is refused; a transport that opens is
/// ``HeadingAuthorizationStatus/authorized``. Headings are stamped with the time they were received.
public final class StreamHeadingSource: HeadingSource, NMEAFeedTap, LineCountingSource {
    /// What to take from the feed, and how.
    public struct Configuration: Sendable, Hashable {
        /// Which sentences this source takes. Default: all.
        public var selection: NMEASentenceSelection
        /// The name headings and faults carry; `nil` for the feed's URL with the selection after `?`.
        public var sourceName: String?
        /// Below this speed, in metres per second, course over ground gives no heading. Default 0.5.
        public var minimumCourseSpeed: Double
        /// Whether an NMEA sentence without a checksum is refused as malformed. Default `false`.
        public var requiresChecksum: Bool
        /// How long the source may be open without a heading before it says so (a
        /// ``HeadingFault/Code/stale`` fault); `nil` never. Default 2 s.
        public var silenceTimeout: Duration?

        /// Creates a configuration.
        /// - Parameters:
        ///   - selection: Which sentences this source takes. Default all.
        ///   - sourceName: The name headings and faults carry, or `nil` for the feed's URL and selection.
        ///   - minimumCourseSpeed: Minimum speed for course over ground, m/s. Default 0.5.
        ///   - requiresChecksum: Whether a sentence without a checksum is refused. Default `false`.
        ///   - silenceTimeout: How long open without a heading before a `stale` fault. Default 2 s.
        public init(
            selection: NMEASentenceSelection = .all, sourceName: String? = nil, minimumCourseSpeed: Double = 0.5,
            requiresChecksum: Bool = false, silenceTimeout: Duration? = .seconds(2)
        ) {
            self.selection = selection
            self.sourceName = sourceName
            self.minimumCourseSpeed = minimumCourseSpeed
            self.requiresChecksum = requiresChecksum
            self.silenceTimeout = silenceTimeout
        }
    }

    private struct State {
        var decoder: HeadingLineDecoder
        var isStarted = false
        var lineNumber = 0
        var authorization = HeadingAuthorizationStatus.notDetermined
        var silence = SilenceWatch()
        /// Whether binary data has been reported since the transport opened.
        var binaryReported = false
        /// Headings of the current read not yet reported: one read's burst becomes one batch.
        var pending: [Heading] = []
        /// A flood of bad lines: the first reported, then a summary at most every 10 s.
        var floods = FaultFloodGate()
    }

    /// The most headings reported in one batch.
    private static let batchSize = 256

    /// The feed this source reads from.
    public let feed: NMEAFeed
    /// What this source takes, and how.
    public let configuration: Configuration
    /// The name headings and faults carry.
    public let name: String
    private let state: HeadingSourceState<State>

    /// `true`: a device it may not open is tried again (with backoff), and reported authorized
    /// once it opens, so the proxy keeps it running after a refusal.
    public var keepsTryingAfterDenial: Bool { true }

    /// The lines this source read so far (its instrument's, and those it takes context from), by result.
    package var lineCounts: LineCounts { state.withLock { $0.decoder.lineCounts } }

    /// Creates a source reading from a feed, which it may share with other sources.
    /// - Parameters:
    ///   - feed: The feed.
    ///   - configuration: What to take from it, and how.
    public init(feed: NMEAFeed, configuration: Configuration = Configuration()) {
        self.feed = feed
        self.configuration = configuration
        let selection = configuration.selection.description
        let name = configuration.sourceName
            ?? (selection.isEmpty ? feed.name : feed.name + (feed.name.contains("?") ? "&" : "?") + selection)
        self.name = name
        var decoder = HeadingLineDecoder(
            path: nil, sourceName: name, minimumCourseSpeed: configuration.minimumCourseSpeed, timestamping: .reception,
            requiresChecksum: configuration.requiresChecksum, nmea2000Device: configuration.selection.device
        )
        decoder.nmea2000LocalNode = feed.configuration.localNode
        state = HeadingSourceState(State(decoder: decoder))
    }

    /// Creates a source with a feed of its own.
    /// - Parameters:
    ///   - endpoint: Where the stream comes from.
    ///   - configuration: What to take from it, and how.
    public convenience init(endpoint: NMEAStreamEndpoint, configuration: Configuration = Configuration()) {
        self.init(feed: NMEAFeed(configuration: .init(endpoint: endpoint)), configuration: configuration)
    }

    deinit {
        feed.detach(ObjectIdentifier(self))
    }

    /// Receives the source's reports, on the feed's reader thread. Held weakly.
    public var delegate: (any HeadingSourceDelegate)? {
        get { state.delegate }
        set { state.delegate = newValue }
    }

    /// A serial device this process may not read is ``HeadingAuthorizationStatus/denied`` (after a
    /// ``HeadingFault/Code/permissionDenied`` fault naming it), a readable one
    /// ``HeadingAuthorizationStatus/authorized``. For a network feed, or a device not plugged in
    /// yet, the answer waits for the first attempt to open it, after ``start()``.
    public func requestAuthorization() {
        let serialPath: String? = if case .serial(let path, _) = feed.configuration.endpoint.transport { path } else { nil }
        state.answerAuthorization(\.authorization, reading: serialPath, hint: "is this user in the dialout group?", from: self)
    }

    /// Starts taking sentences; the feed opens its transport if no other source has. Does nothing while started.
    public func start() {
        let started = state.withLock { state in
            guard !state.isStarted else { return false }
            state.isStarted = true
            state.decoder.restart()
            state.silence = SilenceWatch()
            state.floods.reset()
            return true
        }
        if started { feed.attach(self) }
    }

    /// Stops taking sentences; the feed closes its transport when no other source reads it. No
    /// report follows once the one in flight is delivered.
    public func stop() {
        state.withLock { state in
            state.isStarted = false
            state.pending.removeAll(keepingCapacity: true)  // a read's headings not yet reported: dropped
        }
        feed.detach(ObjectIdentifier(self))
    }

    // MARK: The feed's reports (its reader thread)

    package func feedOpened(at now: ContinuousClock.Instant) {
        let (authorize, held): (Bool, [HeadingFault]) = state.withLock { state in
            state.silence.opened(at: now)
            state.binaryReported = false
            // A new connection's first bad line is reported whole; the last one's flood is summed up first.
            let held = state.isStarted ? state.floods.flush(at: now) : []
            state.floods.reset()
            defer { state.authorization = .authorized }
            return (state.isStarted && state.authorization != .authorized, held)
        }
        for fault in held { state.report(.fault(fault), from: self) }
        if authorize { state.report(.authorizationChanged(.authorized), from: self) }
    }

    package func feedReceived(_ piece: FeedPiece, at date: Date) {
        // A heading waits for the end of its read (one batch for a burst, at once for a lone
        // sentence); anything else goes out after the headings before it.
        let (report, pending): (HeadingSourceReport?, Pending) = state.withLock { state in
            var report = decode(piece, at: date, &state)
            switch report {
            case .heading(let heading):
                state.pending.append(heading)
                return (nil, state.pending.count >= Self.batchSize ? Self.take(&state) : .none)
            case .fault(let fault):
                // A flood of bad lines is its first fault, then a summary at most every 10 s.
                report = state.floods.admit(fault, at: .now).map { .fault($0) }
            default:
                break
            }
            return (report, report == nil ? .none : Self.take(&state))
        }
        deliver(pending)
        if let report { state.report(report, from: self) }
    }

    package func feedReadEnded() {
        deliver(state.withLock { Self.take(&$0) })
    }

    /// Headings taken from the state to report.
    private enum Pending {
        case none
        case one(Heading)
        case batch([Heading])
    }

    /// Takes the pending headings, keeping the array's storage for the next read: a lone heading
    /// costs no array, a batch one copy of exactly its size.
    private static func take(_ state: inout State) -> Pending {
        defer { state.pending.removeAll(keepingCapacity: true) }
        switch state.pending.count {
        case 0: return .none
        case 1: return .one(state.pending[0])
        default: return .batch(Array(state.pending))
        }
    }

    /// Reports headings: a lone one as itself, several as a batch.
    private func deliver(_ pending: Pending) {
        switch pending {
        case .none: break
        case .one(let heading): state.report(.heading(heading), from: self)
        case .batch(let headings): state.report(headings: headings, from: self)
        }
    }

    /// What a piece gives this source, under the state's lock.
    private func decode(_ piece: FeedPiece, at date: Date, _ state: inout State) -> HeadingSourceReport? {
        guard state.isStarted else { return nil }
        let streamPiece: StreamPiece
        switch piece {
        case .stream(let piece):
            streamPiece = piece
        case .canFrame(let frame, let receivedAt):
            state.silence.saw(pgn: frame.identifier.pgn, source: frame.identifier.source)
            let time = receivedAt > 0 ? Date(timeIntervalSince1970: receivedAt) : date
            return nmea2000Report(state.decoder.decode(frame: frame, receivedAt: time), &state)
        case .nmea2000Message(let message):
            state.silence.saw(pgn: message.pgn, source: message.source)
            return nmea2000Report(state.decoder.decode(message: message, receivedAt: date), &state)
        case .badFrame(let reason):
            let fault = HeadingSourceReport.fault(HeadingFault(code: .malformedInput, source: name, reason: reason, timestamp: date))
            state.decoder.countLine(fault)
            return fault
        }
        switch streamPiece {
        case .line(let line):
            let address = NMEASentenceSelection.address(of: line)
            let match = configuration.selection.match(line, address: address)
            state.silence.saw(line, address: address, taken: match == .taken)
            guard match != .other else { return nil }
            state.lineNumber += 1
            let output = state.decoder.decode(line, number: state.lineNumber, receivedAt: date)
            guard match == .taken else { return nil }  // context only: its date, time and position
            if case .heading = output.report { state.silence.headingDelivered() }
            if let notice = state.decoder.takeDeviceNotice() { feed.configuration.logger.notice("\(name): \(notice)") }
            if output.isSkipped, line.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 > 0x7E }) {
                // A receiver in a binary protocol: said once, not once a line.
                guard !state.binaryReported else { return nil }
                state.binaryReported = true
                return .fault(
                    HeadingFault(
                        code: .unsupportedInput, source: name,
                        reason: "binary data, not NMEA 0183 (a receiver in a binary protocol such as SiRF or u-blox UBX? "
                            + "set it to NMEA, or read it through gpsd); later binary lines are skipped without a fault until it is opened again",
                        timestamp: date
                    )
                )
            }
            return output.report
        case .ubxFrame(let frame):
            guard configuration.selection.isAll || configuration.selection.sentences.contains("RELPOSNED") else { return nil }
            state.lineNumber += 1
            do throws(LineDecodingError) {
                guard let reading = try UBXRelativePositionDecoder.decode(frame) else {
                    state.decoder.countLine(nil)
                    return nil
                }
                state.silence.headingDelivered()
                let report = state.decoder.report(for: reading, receivedAt: date)
                state.decoder.countLine(report)
                return report
            } catch {
                return Self.counted(.fault(HeadingFault(code: error.code, source: name, reason: error.reason, timestamp: date)), &state)
            }
        case .badFrame(let reason):
            return Self.counted(.fault(HeadingFault(code: .malformedInput, source: name, reason: reason, timestamp: date)), &state)
        case .overlong(let length):
            state.lineNumber += 1
            return Self.counted(.fault(
                HeadingFault(
                    code: .malformedInput, source: name,
                    reason: "line of \(length) bytes is longer than \(feed.configuration.maximumLineLength); skipped", timestamp: date
                )
            ), &state)
        case .fragment(let length):
            return Self.counted(.fault(
                HeadingFault(
                    code: .malformedInput, source: name,
                    reason: "a sentence was cut short (\(length) bytes, then a new sentence or the end of the connection); dropped",
                    timestamp: date
                )
            ), &state)
        }
    }

    /// A report made outside the decoder, counted as one of its lines.
    private static func counted(_ report: HeadingSourceReport, _ state: inout State) -> HeadingSourceReport {
        state.decoder.countLine(report)
        return report
    }

    /// What a CAN frame or NMEA 2000 message gave, and a line for the log about the device chosen.
    private func nmea2000Report(_ output: HeadingLineDecoder.Output, _ state: inout State) -> HeadingSourceReport? {
        if case .heading = output.report { state.silence.headingDelivered() }
        if let notice = state.decoder.takeDeviceNotice() { feed.configuration.logger.notice("\(name): \(notice)") }
        return output.report
    }

    package func feedFailed(_ failure: PortFailure, retryIn: Double?) {
        let (isStarted, deny, held): (Bool, Bool, [HeadingFault]) = state.withLock { state in
            state.silence.closed()
            let deny = failure.faultCode == .permissionDenied && state.authorization != .denied
            if failure.faultCode == .permissionDenied { state.authorization = .denied }
            return (state.isStarted, deny, state.floods.flush(at: .now))  // the bad lines held back come first
        }
        guard isStarted else { return }
        for fault in held { state.report(.fault(fault), from: self) }
        let retry = retryIn.map { "; retrying in \(String(format: "%.2f", $0)) s" } ?? ""
        state.report(.fault(HeadingFault(code: failure.faultCode, source: name, reason: failure.reason + retry)), from: self)
        if deny { state.report(.authorizationChanged(.denied), from: self) }
    }

    package func feedTick(at now: ContinuousClock.Instant) {
        let (faults, calmed): ([HeadingFault], [FaultFloodGate.Calm]) = state.withLock { state in
            guard state.isStarted else { return ([], []) }
            var (faults, calmed) = state.floods.tick(at: now)
            if let timeout = configuration.silenceTimeout,
                let reason = state.silence.silence(at: now, timeout: timeout, selection: configuration.selection)
            {
                faults.append(HeadingFault(code: .stale, source: name, reason: reason))
            }
            return (faults, calmed)
        }
        for fault in faults { state.report(.fault(fault), from: self) }
        for calm in calmed { feed.configuration.logger.notice("\(calm)") }
    }
}

/// The stream source's name before it read NMEA 2000 too: code written against it compiles
/// unchanged (with a warning pointing at the new name).
@available(*, deprecated, renamed: "StreamHeadingSource")
public typealias NMEA0183HeadingSource = StreamHeadingSource
