// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts

/// A heading source that replays a recording: raw NMEA 0183, gpsd JSON as `gpspipe -w` writes
/// it, or gpsd's regression logs (with `#` comments) — at the recorded speed, N times faster, or
/// flat out, once or in a loop.
///
/// Each malformed line becomes one ``HeadingFault/Code/malformedInput`` (or
/// ``HeadingFault/Code/outOfRange``) fault naming the file and line, and the lines around it are
/// delivered; past ``namedBadLines`` of one code, the rest are summarised (at most one fault
/// every 10 s, and one at the end of each pass, counting them in
/// ``HeadingFault/occurrences`` and naming the last). A binary vendor protocol is reported once as ``HeadingFault/Code/unsupportedInput``;
/// a file that cannot be opened as ``HeadingFault/Code/sourceUnavailable``. Lines are read in
/// fixed-size chunks, so memory stays bounded whatever a line's length.
///
/// Pacing uses the recording's own times (gpsd `time`, NMEA `RMC`, `ZDA`, `PASHR`) on an injected
/// clock; a recording without times is paced at ``Configuration/untimedRate``.
public final class ReplayHeadingSource: HeadingSource, LineCountingSource {
    /// How fast to replay.
    public enum Speed: Sendable, Hashable, CustomStringConvertible {
        /// The recorded pace divided by `multiplier`: 1 is as recorded, 10 is ten times faster.
        case recorded(multiplier: Double)
        /// As fast as the lines can be read and delivered. Headings are then reported several at a
        /// time (``HeadingSourceDelegate/headingSource(_:didUpdateHeadings:)``), up to
        /// ``ReplayHeadingSource/batchSize`` at once; a fault is reported after the headings before it.
        case flatOut

        /// The recorded pace.
        public static let asRecorded = Speed.recorded(multiplier: 1)

        /// `×N` or `max`.
        public var description: String {
            switch self {
            case .recorded(let multiplier): "×\(multiplier)"
            case .flatOut: "max"
            }
        }
    }

    /// What to replay and how.
    public struct Configuration: Sendable, Hashable {
        /// The recording's path.
        public var path: String
        /// How fast. Default: as recorded.
        public var speed: Speed
        /// Whether to start again at the end. Default `false`.
        public var loops: Bool
        /// Headings per second for a recording that carries no times. Default 10.
        public var untimedRate: Double
        /// The speed below which course over ground gives no heading, in m/s. Default 0.5 (about 1 knot).
        public var minimumCourseSpeed: Double
        /// The name headings and faults carry. Default `replay:PATH`.
        public var sourceName: String
        /// Whether an NMEA sentence without a checksum is refused as malformed. Default `false`:
        /// a complete sentence without one is accepted.
        public var requiresChecksum: Bool
        /// Which sentences the replay takes: one instrument of a multiplexed recording. Default all.
        public var selection: NMEASentenceSelection

        /// Creates a configuration.
        /// - Parameters:
        ///   - path: The recording.
        ///   - speed: How fast. Default as recorded.
        ///   - loops: Whether to loop. Default `false`.
        ///   - untimedRate: Headings per second without recorded times. Default 10.
        ///   - minimumCourseSpeed: Minimum speed for course over ground, m/s. Default 0.5.
        ///   - sourceName: The source name, or `nil` for `replay:PATH`.
        ///   - requiresChecksum: Whether a sentence without a checksum is refused. Default `false`.
        ///   - selection: Which sentences the replay takes. Default all.
        public init(
            path: String,
            speed: Speed = .asRecorded,
            loops: Bool = false,
            untimedRate: Double = 10,
            minimumCourseSpeed: Double = 0.5,
            sourceName: String? = nil,
            requiresChecksum: Bool = false,
            selection: NMEASentenceSelection = .all
        ) {
            self.path = path
            self.speed = speed
            self.loops = loops
            self.untimedRate = untimedRate
            self.minimumCourseSpeed = minimumCourseSpeed
            self.sourceName = sourceName ?? "replay:\(path)"
            self.requiresChecksum = requiresChecksum
            self.selection = selection
        }
    }

    /// What a replay did, so far or in all.
    public struct Summary: Sendable, Hashable, CustomStringConvertible {
        /// How a replay ended.
        public enum Outcome: Sendable, Hashable {
            /// Still going.
            case running
            /// It read the whole file (and did not loop).
            case completed
            /// ``ReplayHeadingSource/stop()`` ended it.
            case stopped
            /// The file could not be opened or read; the reason names the path.
            case unavailable(String)
            /// The file is in a format HeadingKit cannot replay.
            case unsupported(String)
        }

        /// Headings delivered.
        public var headings = 0
        /// Lines read, comments and blank lines included.
        public var lines = 0
        /// Lines skipped as malformed or out of range.
        public var skippedLines = 0
        /// Lines that repeated a measurement already delivered (gpsd JSON after its NMEA sentence, VTG after RMC).
        public var duplicates = 0
        /// Faults raised, each skipped line one (a flood's summarised lines included).
        public var faults = 0
        /// Times the file was read from the start.
        public var passes = 0
        /// How the replay ended, or that it is still going.
        public var outcome = Outcome.running

        /// One line: headings, lines skipped, faults.
        public var description: String {
            func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
            var text = "\(counted(headings, "heading")), \(counted(skippedLines, "line")) skipped, \(counted(faults, "fault"))"
            text += " (\(counted(lines, "line")) read"
            if duplicates > 0 { text += ", \(counted(duplicates, "duplicate report")) dropped" }
            if passes > 1 { text += ", \(passes) passes" }
            return text + ")"
        }
    }

    private struct State {
        var task: Task<Void, Never>?
        var summary = Summary()
        var waiters: [CheckedContinuation<Summary, Never>] = []
        var lineCounts = LineCounts()
    }

    /// Sleeps until a given time after the replay started.
    private typealias Pacer = @Sendable (Duration) async throws -> Void

    /// What this source replays, and how.
    public let configuration: Configuration
    private let makePacer: @Sendable () -> Pacer
    private let state = HeadingSourceState(State())

    /// The lines read so far, by result, as of the last batch, lone heading or fault.
    package var lineCounts: LineCounts { state.withLock { $0.lineCounts } }

    /// Creates a replay source paced by `clock`.
    /// - Parameters:
    ///   - configuration: What to replay and how.
    ///   - clock: The clock that paces it.
    public init<C: Clock>(configuration: Configuration, clock: C) where C.Duration == Duration {
        self.configuration = configuration
        self.makePacer = {
            let origin = clock.now
            return { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
        }
    }

    /// Creates a replay source paced by `ContinuousClock`.
    /// - Parameter configuration: What to replay and how.
    public convenience init(configuration: Configuration) {
        self.init(configuration: configuration, clock: ContinuousClock())
    }

    deinit {
        state.withLock { $0.task?.cancel() }
    }

    /// `replay:PATH` unless the configuration names it otherwise.
    public var name: String { configuration.sourceName }

    /// Receives the replay's reports. Held weakly.
    public var delegate: (any HeadingSourceDelegate)? {
        get { state.delegate }
        set { state.delegate = newValue }
    }

    /// What the replay has done so far: counted by the replay itself and handed over at the end of
    /// each pass through the file and when it ends (so that no line pays for a lock).
    public var summary: Summary { state.withLock { $0.summary } }

    /// Waits until the replay ends — the file read (without looping), unreadable, or stopped.
    /// - Returns: The final summary.
    public func waitUntilFinished() async -> Summary {
        await withCheckedContinuation { continuation in
            let summary: Summary? = state.withLock { state in
                if state.summary.outcome != .running { return state.summary }
                state.waiters.append(continuation)
                return nil
            }
            if let summary { continuation.resume(returning: summary) }
        }
    }

    /// Reports ``HeadingAuthorizationStatus/denied`` (with a fault naming the path) when the
    /// system refuses to let this process read the file, else ``HeadingAuthorizationStatus/authorized``.
    /// A file that does not exist is an availability fault when the replay starts, not a refusal.
    public func requestAuthorization() {
        let answer = readAuthorization(of: configuration.path, source: name)
        if let fault = answer?.fault { state.report(.fault(fault), from: self) }
        state.report(.authorizationChanged(answer?.status ?? .authorized), from: self)
    }

    /// Starts the replay from the file's start; does nothing while one runs.
    public func start() {
        state.withLock { state in
            guard state.task == nil else { return }
            state.summary = Summary()
            let pacer = makePacer()
            let configuration = configuration
            state.task = Task { [weak self] in
                var replay = Replay(configuration: configuration, pacer: pacer) { [weak self] in self }
                replay.summary.outcome = await replay.run()
                self?.finish(replay.summary)
            }
        }
    }

    /// Stops the replay; no report follows once the current one is delivered.
    public func stop() {
        let task = state.withLock { state in
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    /// Takes the counts of a replay that is still going, at the end of a pass.
    fileprivate func update(_ summary: Summary) {
        state.withLock { $0.summary = summary }
    }

    /// Hands over the decoder's line counts (once a batch, a lone heading or fault, a pass).
    fileprivate func update(_ counts: LineCounts) {
        state.withLock { $0.lineCounts = counts }
    }

    /// Hands over the replay's final counts and wakes whoever waits for its end.
    private func finish(_ summary: Summary) {
        let waiters = state.withLock { state in
            state.summary = summary
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: summary) }
    }

    /// Hands one report to the delegate.
    fileprivate func report(_ report: HeadingSourceReport) {
        state.report(report, from: self)
    }

    /// Hands a batch of headings to the delegate.
    fileprivate func report(headings: [Heading]) {
        state.report(headings: headings, from: self)
    }

    /// The most headings a flat-out replay reports in one call: enough that the work per batch
    /// (one notification) vanishes beside the headings' own, few enough that a batch is a few
    /// tens of kilobytes.
    public static let batchSize = 256

    /// How many bad lines of one fault code are each reported with their `FILE:LINE` before the
    /// rest are summarised: a damaged recording names its first hundred, not its million.
    public static let namedBadLines = 100
}

/// One run of a replay: reads, decodes, paces and delivers, on the task the source started. It
/// owns its counts and hands them to the source at the end of each pass and when it ends.
private struct Replay: Sendable {
    let configuration: ReplayHeadingSource.Configuration
    let pacer: @Sendable (Duration) async throws -> Void
    let source: @Sendable () -> ReplayHeadingSource?
    /// What this run has done so far.
    var summary = ReplayHeadingSource.Summary()
    /// A flat-out replay's headings not yet reported, oldest first (a batch being filled).
    var pending: [Heading] = []
    /// Bad lines past the first ``ReplayHeadingSource/namedBadLines`` of a code: summarised.
    var floods = FaultFloodGate(leading: ReplayHeadingSource.namedBadLines)

    /// How many lines a flat-out replay reads between checks for cancellation.
    private static let yieldInterval = 4096

    mutating func run() async -> ReplayHeadingSource.Summary.Outcome {
        var decoder = HeadingLineDecoder(
            path: configuration.path, sourceName: configuration.sourceName,
            minimumCourseSpeed: configuration.minimumCourseSpeed, requiresChecksum: configuration.requiresChecksum,
            nmea2000Device: configuration.selection.device
        )
        var timeline = ReplayTimeline(untimedInterval: 1 / configuration.untimedRate)
        let selection = configuration.selection
        var pacedOffset = 0.0
        let batches = configuration.speed == .flatOut
        if batches { pending.reserveCapacity(ReplayHeadingSource.batchSize) }
        while true {
            let reader: BoundedLineReader
            do {
                reader = try BoundedLineReader(path: configuration.path, maximumLineLength: HeadingLineDecoder.maximumLineLength)
                if let reason = ReplayFormatInspector.unsupportedFormat(
                    of: try reader.peek(ReplayFormatInspector.inspectedLength)
                ) {
                    deliverFault(.unsupportedInput, "\(configuration.path): \(reason)")
                    return .unsupported(reason)
                }
            } catch {
                let reason = "cannot read \(configuration.path): \(error.description)"
                deliverFault(error.isRefusal ? .permissionDenied : .sourceUnavailable, reason)
                return .unavailable(reason)
            }
            summary.passes += 1
            let headingsBefore = summary.headings
            var sinceYield = 0
            while true {
                let next: BoundedLineReader.Line?
                do {
                    next = try reader.next()
                } catch {
                    let reason = "reading \(configuration.path) failed: \(error.description)"
                    deliverFault(.sourceUnavailable, reason)
                    return .unavailable(reason)
                }
                guard let next else { break }
                // Once the recording has given a time, headings carry that, and the decoder does
                // not read the reception time: no clock per line then.
                let now = decoder.usesReceptionTime ? Date() : .distantPast
                let output: HeadingLineDecoder.Output
                switch next {
                case .text(let number) where !selection.isAll:
                    // One instrument of several: another's lines give nothing, an RMC its context only.
                    let match = reader.withLine { selection.match($0, address: NMEASentenceSelection.address(of: $0)) }
                    if match == .other {
                        summary.lines += 1
                        continue
                    }
                    let decoded = reader.withLine { decoder.decode($0, number: number, receivedAt: now) }
                    output = match == .context ? HeadingLineDecoder.Output(recordingTime: decoded.recordingTime) : decoded
                case .text(let number): output = reader.withLine { decoder.decode($0, number: number, receivedAt: now) }
                case .overlong(let number, let length):
                    output = decoder.overlongLine(length: length, number: number, receivedAt: now)
                    decoder.countLine(output.report)
                }
                let carriesHeading = if case .heading = output.report { true } else { false }  // no copy of the heading
                let offset = timeline.advance(time: output.recordingTime, carriesHeading: carriesHeading)
                if case .recorded(let multiplier) = configuration.speed, offset > pacedOffset {
                    pacedOffset = offset
                    do { try await pacer(.seconds(offset / multiplier)) } catch { return .stopped }
                    if Task.isCancelled { return .stopped }
                } else {
                    // Cancellation is checked here and after each pause, not per line: a flat-out
                    // replay reads at most `yieldInterval` lines (a few milliseconds) after it.
                    sinceYield += 1
                    if sinceYield >= Self.yieldInterval {
                        sinceYield = 0
                        guard reportPending(counts: decoder.lineCounts) else { return .stopped }
                        await Task.yield()
                        if Task.isCancelled { return .stopped }
                    }
                }
                summary.lines += 1
                if output.isSkipped { summary.skippedLines += 1 }
                if output.isDuplicate { summary.duplicates += 1 }
                // The source is looked up (a weak load) only where something goes to it: once a
                // batch when flat out, not once a line.
                switch (consume output).report {  // moved, not copied, into the batch
                case .heading(let heading) where batches:
                    pending.append(heading)
                    if pending.count >= ReplayHeadingSource.batchSize, !reportPending(counts: decoder.lineCounts) { return .stopped }
                case .heading(let heading):
                    guard let source = source() else { return .stopped }
                    summary.headings += 1
                    source.update(decoder.lineCounts)
                    source.report(.heading(heading))
                case .fault(let fault):
                    summary.faults += 1
                    guard let fault = floods.admit(fault, at: .now) else { break }
                    guard let source = source() else { return .stopped }
                    reportPending(to: source)  // the headings before a fault come first
                    source.update(decoder.lineCounts)
                    source.report(.fault(fault))
                case .authorizationChanged(let status):
                    guard let source = source() else { return .stopped }
                    reportPending(to: source)
                    source.report(.authorizationChanged(status))
                case nil: break
                }
            }
            reportPending()
            for fault in floods.flush(at: .now) { source()?.report(.fault(fault)) }
            source()?.update(summary)
            source()?.update(decoder.lineCounts)
            // A loop needs headings to loop over: a file without any would spin for nothing.
            guard configuration.loops, !Task.isCancelled, summary.headings > headingsBefore else {
                return Task.isCancelled ? .stopped : .completed
            }
            decoder.restart()
            timeline.restart()
        }
    }

    /// Reports the batch being filled, if any, and counts its headings.
    ///
    /// Not once the replay is stopped: ``ReplayHeadingSource/stop()`` is how a proxy that was
    /// disabled stops its source, and a disabled proxy takes no headings; a flat-out replay, which
    /// looks for the stop only every ``yieldInterval`` lines, would otherwise count up to that many
    /// headings that went nowhere.
    /// - Parameter source: The source, if the caller has it; looked up otherwise.
    /// - Returns: `false` if the source is gone or the replay stopped (it should end), otherwise `true`.
    @discardableResult
    private mutating func reportPending(to source: ReplayHeadingSource? = nil, counts: LineCounts? = nil) -> Bool {
        guard !pending.isEmpty else { return true }
        guard !Task.isCancelled else {
            pending.removeAll(keepingCapacity: true)
            return false
        }
        guard let source = source ?? self.source() else { return false }
        summary.headings += pending.count
        if let counts { source.update(counts) }
        source.report(headings: pending)
        pending.removeAll(keepingCapacity: true)
        return true
    }

    private mutating func deliverFault(_ code: HeadingFault.Code, _ reason: String) {
        reportPending()
        summary.faults += 1
        source()?.report(.fault(HeadingFault(code: code, source: configuration.sourceName, reason: reason)))
    }
}
