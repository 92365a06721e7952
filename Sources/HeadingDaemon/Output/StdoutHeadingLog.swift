// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import ServiceLifecycle
import Synchronization

/// The heading log: a consumer of ``NotificationCenter/heading`` that prints each heading on
/// standard output and each fault and authorization change on standard error, one line each.
///
/// It observes the notification center only — the proxy never calls it. With a limit it ends after
/// that many headings, which (as a service that shuts the group down on success) ends headingd.
final class StdoutHeadingLog: Service, Sendable {
    private let printer: Printer
    private let reachedLimit: AsyncStream<Void>
    /// The center's observer, set once in init; removed when this value goes away, with the
    /// observation. Its closure holds the printer, not the log, so that it costs no weak load
    /// per heading and does not keep the log alive.
    private let observation: HeadingObservation

    /// Creates the log and starts observing at once, so that no event posted before ``run()``
    /// begins is missed.
    /// - Parameters:
    ///   - center: The center to observe.
    ///   - format: How to print headings.
    ///   - limit: How many headings to print before ending; `nil` for no end.
    ///   - output: Where headings go.
    ///   - errors: Where faults and authorization changes go.
    ///   - batchesOutput: Whether heading lines are written in 64 KiB blocks (for a flat-out
    ///     replay) rather than one by one as they come (for everything live). Default `false`.
    ///   - whenEnded: Called once the limit is reached or headings cannot be written: it asks for
    ///     headingd's shutdown, which shuts the group down (the log then returns in its turn).
    init(
        center: NotificationCenter = .heading,
        format: OutputFormat,
        limit: Int? = nil,
        output: LineWriter = .standardOutput,
        errors: LineWriter = .standardError,
        batchesOutput: Bool = false,
        whenEnded: @escaping @Sendable () -> Void = {}
    ) {
        self.whenEnded = whenEnded
        let (reachedLimit, limitContinuation) = AsyncStream.makeStream(of: Void.self)
        self.reachedLimit = reachedLimit
        let printer = Printer(
            formatter: HeadingLineFormatter(format: format), limit: limit, output: output,
            buffer: batchesOutput ? OutputBuffer(writer: output) : nil, errors: errors, end: limitContinuation
        )
        self.printer = printer
        // A flat-out replay's events are printed on a thread of their own, beside the decoding
        // (in order; the poster waits when it is eight hand-overs ahead).
        let printingThread = batchesOutput
            ? PrintingThread(name: "headingd-print") { events in printer.print(into: printer.buffer) { events.forEach($0) } }
            : nil
        self.printingThread = printingThread
        // A batch (a flat-out replay's, or a burst a stream read at once) is written in one block:
        // into the persistent buffer when output is batched, else into the batch buffer, flushed at
        // the batch's end. Every other event is written as it comes.
        let token = center.addObserver(forName: nil, object: nil, queue: nil) { notification in
            if let printingThread {
                let events = notification.heldHeadingEvents
                if events.isEmpty || printingThread.enqueue(events) { return }
                return printer.print(into: printer.buffer) { events.forEach($0) }  // after the log's end: here, still in order
            }
            let isBatch = notification.name == .headingBatchDidArrive
            let buffer = printer.buffer ?? (isBatch ? printer.batchBuffer : nil)
            printer.print(into: buffer, flushingBatchBuffer: isBatch && printer.buffer == nil) { notification.forEachHeadingEvent($0) }
        }
        observation = HeadingObservation(center: center, token: token)
    }

    deinit {
        printingThread?.close()
    }

    /// Prints a flat-out replay's events beside the decoding; `nil` when every event is printed where it arrives.
    private let printingThread: PrintingThread?

    /// The number of headings printed so far.
    var headingCount: Int { printer.state.withLock { $0.printed } }

    /// Why heading lines could not be written, once one could not: the log has then ended, and
    /// headingd exits with ``ExitStatus/outputError``.
    var writeError: LineWriter.WriteError? { printer.writeError }

    /// Waits until headingd shuts down; at the limit (or when headings cannot be written) it asks
    /// for the shutdown, and still returns only in its turn.
    ///
    /// It never ends its group by returning: were a SIGTERM's shutdown under way at that moment,
    /// ServiceLifecycle would count the return as a service ending during another's shutdown, and
    /// headingd would exit 1 (the reloader keeps the same rule, for the same reason).
    func run() async {
        let shutDown = await cancelWhenGracefulShutdown { [reachedLimit] in
            for await _ in reachedLimit {}
            return Task.isCancelled
        }
        if !shutDown {
            whenEnded()
            try? await gracefulShutdown()
        }
        printingThread?.close()  // what was handed over is printed before the last block goes out
        if let error = printer.buffer?.flush() { printer.recordWriteError(error) }
    }

    private let whenEnded: @Sendable () -> Void

    /// What prints the events: everything the center's observer needs, and nothing else.
    private final class Printer: Sendable {
        let formatter: HeadingLineFormatter
        let limit: Int?
        let output: LineWriter
        /// Collects heading lines into blocks when output is batched; `nil` writes each line at once.
        let buffer: OutputBuffer?
        /// Collects one batch's lines when output is not batched: written at the batch's end.
        let batchBuffer: OutputBuffer
        let errors: LineWriter
        /// Ends ``StdoutHeadingLog/run()``: the limit is reached or headings cannot be written.
        let end: AsyncStream<Void>.Continuation
        /// How many headings were printed, and the first failed write of a heading line (after
        /// which headings no longer reach standard output): one lock for both, taken once a heading.
        let state = Mutex(State())

        struct State {
            var printed = 0
            var failedWrite: LineWriter.WriteError?
        }

        init(
            formatter: HeadingLineFormatter, limit: Int?, output: LineWriter, buffer: OutputBuffer?, errors: LineWriter,
            end: AsyncStream<Void>.Continuation
        ) {
            self.formatter = formatter
            self.limit = limit
            self.output = output
            self.buffer = buffer
            self.batchBuffer = OutputBuffer(writer: output)
            self.errors = errors
            self.end = end
        }

        var writeError: LineWriter.WriteError? { state.withLock { $0.failedWrite } }

        /// Prints the events `forEach` gives, in order, their lines into `buffer` (each written at
        /// once when `nil`); then writes the batch buffer when asked; ends the log when the limit
        /// is reached. What the center's observer and the printing thread both do.
        /// - Parameters:
        ///   - buffer: Where heading lines are collected, or `nil`.
        ///   - flushingBatchBuffer: Whether ``batchBuffer`` is written after the events.
        ///   - forEach: Calls its argument with each event.
        func print(into buffer: OutputBuffer?, flushingBatchBuffer: Bool = false, _ forEach: ((HeadingEvent) -> Void) -> Void) {
            var ended = false
            forEach { event in
                if !ended, handle(event, into: buffer) { ended = true }
            }
            if flushingBatchBuffer, let error = batchBuffer.flush() { recordWriteError(error) }
            if ended { end.finish() }
        }

        /// Records the first failed heading write, says so on standard error, and ends the log.
        func recordWriteError(_ error: LineWriter.WriteError) {
            let isFirst = state.withLock { state in
                defer { if state.failedWrite == nil { state.failedWrite = error } }
                return state.failedWrite == nil
            }
            guard isFirst else { return }
            errors.write("headingd: cannot write headings to standard output: \(error)", priority: .error)
            end.finish()
        }

        /// Prints one event, its line into `buffer` if there is one; returns whether the limit is now reached.
        func handle(_ event: HeadingEvent, into buffer: OutputBuffer?) -> Bool {
            switch event {
            case .heading(let heading):
                let position: Int? = state.withLock { state in
                    if state.failedWrite != nil { return nil }
                    if let limit, state.printed >= limit { return nil }
                    state.printed += 1
                    return state.printed
                }
                guard let position else { return true }
                let isLast = limit.map { position >= $0 } ?? false
                let error: LineWriter.WriteError?
                if let buffer {
                    error = buffer.append(heading, formattedBy: formatter) ?? (isLast ? buffer.flush() : nil)
                } else {
                    error = output.write(heading, formattedBy: formatter)
                }
                if let error {
                    state.withLock { $0.printed -= 1 }
                    recordWriteError(error)
                    return true
                }
                return isLast
            case .fault(let fault):
                if let error = buffer?.flush() { recordWriteError(error) }  // the headings before a fault come out before it
                errors.write("headingd: fault: \(fault)", priority: .warning)
            case .authorizationChanged(let status):
                if let error = buffer?.flush() { recordWriteError(error) }
                errors.write("headingd: authorization: \(status)", priority: status == .authorized ? .info : .warning)
            case .notice(let notice):
                if let error = buffer?.flush() { recordWriteError(error) }
                errors.write("headingd: notice: \(notice)", priority: .notice)
            }
            return false
        }
    }
}
