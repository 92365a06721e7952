// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Logging
import ServiceLifecycle
import Synchronization

/// The outputs, kept across reloads: an output whose settings did not change keeps running — its
/// listener, its clients, a Signal K client's subscriptions — while the sources and the processor
/// are rebuilt behind it; it hears headings through the fan-out, which the new pipeline feeds as
/// the old one did. A loop over ``kinds``: each output type declares its settings and opens its
/// service from them (``OutputKind``), one of each kind at most. An output whose
/// settings changed is rebuilt alone: the new one opens (and, for a new NMEA 0183 TCP address,
/// listens) before the old one is stopped; when the new one cannot open, the old one is kept and
/// the reason logged. Each output runs in a service group of its own, so that it can be stopped
/// alone. `Sendable`: its table is behind a `Mutex`.
final class OutputSet: Sendable {
    /// Every output kind, in the order they open at start (and are looked at on a reload).
    static let kinds = [
        OutputDeclaration(NMEA0183TCPOutput.self), OutputDeclaration(NMEA0183UDPOutput.self), OutputDeclaration(NMEA0183SerialOutput.self),
        OutputDeclaration(HistoryRecorder.self), OutputDeclaration(SignalKOutput.self), OutputDeclaration(MQTTOutput.self),
        OutputDeclaration(NMEA2000Output.self), OutputDeclaration(HTTPOutput.self),
    ]

    private struct Running: Sendable {
        let request: OutputRequest
        let group: ServiceGroup
        let task: Task<Void, Never>
    }

    private let logger: Logger
    private let metrics: HeadingMetrics
    private let status: StatusRoutes
    /// Where the outputs hear headings and faults: the process's one typed fan-out.
    private let fanOut: HeadingFanOut
    /// The running outputs, by kind.
    private let running = Mutex<[String: Running]>([:])
    /// The NMEA 2000 buses, where the node says its address to the sources on its bus.
    private let buses: NMEA2000Buses

    /// - Parameters:
    ///   - metrics: What `/metrics` serves, when the settings turn it on.
    ///   - status: What the status service shows, when the settings turn it on; it is told
    ///     which outputs run.
    ///   - fanOut: Where the outputs hear headings and faults.
    ///   - buses: The process's NMEA 2000 buses, shared with the sources.
    ///   - logger: The outputs' logger.
    init(metrics: HeadingMetrics, status: StatusBoard, fanOut: HeadingFanOut, buses: NMEA2000Buses = NMEA2000Buses(), logger: Logger) {
        self.fanOut = fanOut
        self.buses = buses
        self.metrics = metrics
        self.status = StatusRoutes(board: status)
        self.logger = logger
        status.setOutputs { [weak self] in self?.statuses ?? [] }
    }

    /// The outputs that run, with their counts, for the status report (those with a label).
    var statuses: [StatusReport.Output] {
        let kinds = running.withLock { Set($0.keys) }
        return Self.kinds.filter { kinds.contains($0.kind) }.compactMap { $0.label.map { metrics.output($0).status } }
    }

    /// How many outputs run.
    var count: Int { running.withLock { $0.count } }

    /// Makes the running outputs those `settings` ask for: keeps the unchanged, opens the new and
    /// the changed (before stopping the ones they replace), stops the ones no longer asked for.
    /// - Parameters:
    ///   - settings: The settings.
    ///   - signalKSelf: The Signal K identity when the settings give none.
    ///   - isReload: Whether outputs already run: a new output that cannot open is then logged and
    ///     the old one kept, rather than thrown.
    /// - Throws: The ``OutputOpenError`` of an output that cannot open, at start.
    func apply(_ settings: DaemonSettings, signalKSelf: () -> String, isReload: Bool) async throws {
        let history = settings.historyEnabled
            ? HistoryStore(file: settings.historyFile ?? StateDirectory.process.file("history.sqlite"), days: settings.historyDays)
            : nil
        try await withoutActuallyEscaping(signalKSelf) { signalKSelf in
            let context = OutputContext(fanOut: fanOut, metrics: metrics, status: status, buses: buses, logger: logger, signalKSelf: signalKSelf)
            for kind in Self.kinds {
                try await apply(kind.request(settings, history), to: kind.kind, in: context, isReload: isReload)
            }
        }
    }

    /// Makes the running output of `kind` the one `wanted` asks for.
    private func apply(_ wanted: OutputRequest?, to kind: String, in context: OutputContext, isReload: Bool) async throws {
        let current = running.withLock { $0[kind] }
        guard current?.request != wanted else {
            if let current, isReload { logger.notice("\(current.request.name): kept, with its clients") }
            return
        }
        guard let wanted else {
            if let current { await stop(kind, current) }
            return
        }
        // The same TCP address cannot be listened on twice, and an exclusive output (one MQTT
        // client a vessel, one NAME on the bus) is one at a time: the old one goes first then.
        let first = wanted.isExclusive || (wanted.address != nil && wanted.address == current?.request.address)
        if let current, first { await stop(kind, current) }
        do {
            let service = try await wanted.open(in: context)
            start(kind, wanted, service)
            if let current, !first { await stop(kind, current, replaced: true) }
        } catch let error as OutputOpenError {
            guard isReload else { throw error }
            logger.error("\(error); \(current == nil || first ? "no" : "the old") \(wanted.name) runs")
        }
    }

    /// Stops every output, each after its clients are told (a graceful shutdown).
    func stopAll() async {
        let all = running.withLock { running in
            defer { running.removeAll() }
            return running
        }
        for (_, output) in all {
            await output.group.triggerGracefulShutdown()
            await output.task.value
        }
    }

    private func start(_ kind: String, _ request: OutputRequest, _ service: any Service) {
        // Subscribed now, before its task is scheduled and before the pipeline's sources start:
        // an event they deliver at once reaches it.
        (service as? any HeadingEventConsumer)?.startConsuming()
        // A group of one, without signals of its own: headingd's shutdown stops it through stopAll.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: service)], logger: logger))
        let logger = logger
        let name = request.name
        let task = Task {
            do {
                try await group.run()
            } catch {
                logger.error("\(name) ended: \(error)")
            }
        }
        running.withLock { $0[kind] = Running(request: request, group: group, task: task) }
    }

    private func stop(_ kind: String, _ output: Running, replaced: Bool = false) async {
        running.withLock { running in
            if running[kind].map({ $0.group === output.group }) == true { running[kind] = nil }
        }
        await output.group.triggerGracefulShutdown()
        await output.task.value
        logger.notice("\(output.request.name): stopped\(replaced ? ", replaced by its new settings" : "")")
    }
}

/// Where the heading's history is kept, and for how long: opened once per file and kept, so that
/// the recorder and the Signal K output's routes share one database across reloads.
struct HistoryStore: Sendable, Hashable {
    /// The file; `nil` for one in memory.
    let file: String?
    let days: Double

    /// Why the history could not be opened.
    private static let opened = Mutex<[HistoryStore: HeadingHistory]>([:])

    /// The history for these settings, opened once.
    func open(logger: Logger) throws(OutputOpenError) -> HeadingHistory {
        do {
            return try Self.opened.withLock { opened in
                if let history = opened[self] { return history }
                // A damaged file is moved aside, an unwritable directory means memory: never a reason to stop.
                let history = try SQLiteStore.opening(path: file, what: "history", logger: logger) { try HeadingHistory(path: $0, days: days) }.store
                if file == nil { logger.notice("history: no state directory: the history is kept in memory, for this run only") }
                opened[self] = history
                return history
            }
        } catch {
            throw OutputOpenError.cannotOpen("history", "cannot open \(file ?? "the history in memory"): \(error)")
        }
    }
}
