// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Logging
import ServiceLifecycle
import Synchronization

/// The network and serial outputs, kept across reloads: an output whose settings did
/// not change keeps running — its listener, its clients, a Signal K client's subscriptions — while
/// the sources and the processor are rebuilt behind it; it hears headings through the heading
/// `NotificationCenter`, which the new pipeline posts to as the old one did. An output whose
/// settings changed is rebuilt alone: the new one opens (and, for a new NMEA 0183 TCP address,
/// listens) before the old one is stopped; when the new one cannot open, the old one is kept and
/// the reason logged. Each output runs in a service group of its own, so that it can be stopped
/// alone. `Sendable`: its table is behind a `Mutex`.
final class OutputSet: Sendable {
    /// One output's own settings: equal settings, a kept output.
    enum Settings: Equatable, Sendable {
        case nmeaTCP(ListenAddress, maximumClients: Int, sender: NMEA0183SenderSettings)
        case nmeaUDP([ListenAddress], sender: NMEA0183SenderSettings)
        case nmeaSerial(device: String, baud: Int, sender: NMEA0183SenderSettings)
        case signalK(
            ListenAddress, selfURN: String?, maximumClients: Int, maximumSubscriptions: Int, limits: HTTPLimits, servesMetrics: Bool, servesStatus: Bool,
            history: HistoryStore?
        )
        /// The heading's history, recorded.
        case history(HistoryStore)
        /// The fleet's MQTT broker.
        case mqtt(MQTTSettings, broker: MQTTSettings.Broker, selfURN: String?, staleAfter: Double)
        /// headingd's own HTTP listener, for the metrics and the status service (the Signal K output is off).
        case http(ListenAddress, limits: HTTPLimits, servesMetrics: Bool, servesStatus: Bool)
        /// A node on the NMEA 2000 bus.
        case nmea2000(NMEA2000OutputSettings, interface: NMEA2000OutputSettings.Interface)

        /// The output's name, for logs.
        var name: String {
            switch self {
            case .nmeaTCP(let address, _, _): "NMEA 0183 TCP output on \(address)"
            case .nmeaUDP: "NMEA 0183 UDP output"
            case .nmeaSerial(let device, _, _): "NMEA 0183 serial output on \(device)"
            case .signalK(let address, _, _, _, _, _, _, _): "Signal K output on \(address)"
            case .history(let store): "history in \(store.file ?? "memory")"
            case .http(let address, _, _, _): "HTTP listener on \(address)"
            case .mqtt(_, let broker, _, _): "MQTT output to \(broker)"
            case .nmea2000(_, let interface): "NMEA 2000 output on \(interface)"
            }
        }
    }

    /// Which output: one of each at most.
    private enum Kind: Hashable, Sendable {
        case nmeaTCP, nmeaUDP, nmeaSerial, history, signalK, mqtt, nmea2000, http

        /// The `output` label of its metrics, and its name in the status report.
        var label: String? {
            switch self {
            case .nmeaTCP: "nmea0183_tcp"
            case .nmeaUDP: "nmea0183_udp"
            case .nmeaSerial: "nmea0183_serial"
            case .signalK: "signalk"
            case .mqtt: "mqtt"
            case .nmea2000: "nmea2000"
            case .http, .history: nil
            }
        }
    }

    private struct Running: Sendable {
        let settings: Settings
        let group: ServiceGroup
        let task: Task<Void, Never>
    }

    private let logger: Logger
    private let metrics: HeadingMetrics
    private let status: StatusRoutes
    /// Where the outputs hear headings and faults: the process's one typed fan-out.
    private let fanOut: HeadingFanOut
    private let running = Mutex<[Kind: Running]>([:])
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

    /// The outputs that run, with their counts, for the status report.
    var statuses: [StatusReport.Output] {
        let kinds = running.withLock { Set($0.keys) }
        return [Kind.nmeaTCP, .nmeaUDP, .nmeaSerial, .signalK, .mqtt, .nmea2000].filter(kinds.contains).compactMap { $0.label.map { metrics.output($0).status } }
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
        var wanted: [Kind: Settings] = [:]
        if let address = settings.nmeaTCPListen {
            wanted[.nmeaTCP] = .nmeaTCP(address, maximumClients: settings.nmeaTCPMaxClients, sender: settings.nmeaTCPSender)
        }
        if !settings.nmeaUDPTargets.isEmpty { wanted[.nmeaUDP] = .nmeaUDP(settings.nmeaUDPTargets, sender: settings.nmeaUDPSender) }
        if let device = settings.nmeaSerialDevice {
            wanted[.nmeaSerial] = .nmeaSerial(device: device, baud: settings.nmeaSerialBaud, sender: settings.nmeaSerialSender)
        }
        let history = settings.historyEnabled
            ? HistoryStore(file: settings.historyFile ?? StateDirectory.process.file("history.sqlite"), days: settings.historyDays)
            : nil
        if let history { wanted[.history] = .history(history) }
        if settings.signalKEnabled {
            wanted[.signalK] = .signalK(
                settings.signalKListen, selfURN: settings.signalKSelf, maximumClients: settings.signalKMaxClients,
                maximumSubscriptions: settings.signalKMaxSubscriptions, limits: settings.httpLimits, servesMetrics: settings.metricsEnabled,
                servesStatus: settings.statusEnabled, history: history
            )
        } else if settings.servesHTTP {
            wanted[.http] = .http(settings.httpListen, limits: settings.httpLimits, servesMetrics: settings.metricsEnabled, servesStatus: settings.statusEnabled)
        }
        if let broker = settings.mqtt.broker {
            wanted[.mqtt] = .mqtt(settings.mqtt, broker: broker, selfURN: settings.signalKSelf, staleAfter: settings.staleAfter)
        }
        if let interface = settings.nmea2000.interface { wanted[.nmea2000] = .nmea2000(settings.nmea2000, interface: interface) }
        for kind in [Kind.nmeaTCP, .nmeaUDP, .nmeaSerial, .history, .signalK, .mqtt, .nmea2000, .http] {
            let current = running.withLock { $0[kind] }
            guard current?.settings != wanted[kind] else {
                if let current, isReload { logger.notice("\(current.settings.name): kept, with its clients") }
                continue
            }
            guard let settings = wanted[kind] else {
                if let current { await stop(kind, current) }
                continue
            }
            // The same TCP address cannot be listened on twice, and one vessel is one MQTT client
            // (a new connection would take the old one's session, and the old one's clean stop
            // would then say offline after the new one said online), and one node is one NAME on
            // the bus (two would contest their own address): the old one goes first then.
            let sameAddress = kind == .mqtt || kind == .nmea2000
                || (Self.address(of: settings) != nil && Self.address(of: settings) == current.flatMap { Self.address(of: $0.settings) })
            if let current, sameAddress { await stop(kind, current) }
            do {
                let service = try await open(settings, signalKSelf: signalKSelf)
                start(kind, settings, service)
                if let current, !sameAddress { await stop(kind, current, replaced: true) }
            } catch let error as OutputOpenError {
                guard isReload else { throw error }
                logger.error("\(error); \(current == nil || sameAddress ? "no" : "the old") \(settings.name) runs")
            }
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

    private static func address(of settings: Settings) -> ListenAddress? {
        switch settings {
        case .nmeaTCP(let address, _, _), .signalK(let address, _, _, _, _, _, _, _), .http(let address, _, _, _): address
        case .nmeaUDP, .nmeaSerial, .mqtt, .history, .nmea2000: nil
        }
    }

    /// Makes an output and opens it (binds its listener, resolves its targets).
    private func open(_ settings: Settings, signalKSelf: () -> String) async throws -> any Service {
        switch settings {
        case .nmeaTCP(let address, let maximumClients, let sender):
            let output = NMEA0183TCPOutput(
                configuration: .init(address: address, maximumClients: maximumClients, sender: sender.configuration), center: fanOut,
                metrics: metrics.output("nmea0183_tcp"), logger: logger
            )
            try await output.bind()
            return output
        case .nmeaUDP(let targets, let sender):
            let output = NMEA0183UDPOutput(
                configuration: .init(targets: targets, sender: sender.configuration), center: fanOut, metrics: metrics.output("nmea0183_udp"), logger: logger
            )
            try await output.open()
            return output
        case .nmeaSerial(let device, let baud, let sender):
            return NMEA0183SerialOutput(
                configuration: .init(device: device, baud: baud, sender: sender.configuration), center: fanOut,
                metrics: metrics.output("nmea0183_serial"), logger: logger
            )
        case .history(let store):
            return HistoryRecorder(history: try store.open(logger: logger), center: fanOut, logger: logger)
        case .signalK(let address, let selfURN, let maximumClients, let maximumSubscriptions, let limits, let servesMetrics, let servesStatus, let history):
            let urn = selfURN ?? signalKSelf()
            let output = SignalKOutput(
                configuration: .init(
                    address: address, selfURN: urn, maximumClients: maximumClients, maximumSubscriptions: maximumSubscriptions,
                    limits: limits, metrics: servesMetrics ? metrics : nil, outputMetrics: metrics.output("signalk"),
                    status: servesStatus ? status : nil,
                    history: try history.map { HistoryRoutes(history: try $0.open(logger: logger), context: "vessels.\(urn)") }
                ),
                center: fanOut, logger: logger
            )
            try await output.bind()
            return output
        case .mqtt(let settings, let broker, let selfURN, let staleAfter):
            let output = MQTTOutput(
                configuration: .init(settings: settings, broker: broker, selfURN: selfURN ?? signalKSelf(), staleAfter: staleAfter), center: fanOut,
                metrics: metrics.output("mqtt"), registry: metrics.registry, logger: logger
            )
            try output.open()
            return output
        case .nmea2000(let settings, let interface):
            return NMEA2000Output.opening(
                settings, interface: interface, center: fanOut, metrics: metrics, localNode: buses.node(on: interface), logger: logger
            )
        case .http(let address, let limits, let servesMetrics, let servesStatus):
            let output = HTTPOutput(
                configuration: .init(address: address, limits: limits), metrics: servesMetrics ? metrics : nil, status: servesStatus ? status : nil,
                logger: logger
            )
            try await output.bind()
            return output
        }
    }

    private func start(_ kind: Kind, _ settings: Settings, _ service: any Service) {
        // Subscribed now, before its task is scheduled and before the pipeline's sources start:
        // an event they deliver at once reaches it.
        (service as? any HeadingEventConsumer)?.startConsuming()
        // A group of one, without signals of its own: headingd's shutdown stops it through stopAll.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: service)], logger: logger))
        let logger = logger
        let task = Task {
            do {
                try await group.run()
            } catch {
                logger.error("\(settings.name) ended: \(error)")
            }
        }
        running.withLock { $0[kind] = Running(settings: settings, group: group, task: task) }
    }

    private func stop(_ kind: Kind, _ output: Running, replaced: Bool = false) async {
        running.withLock { running in
            if running[kind].map({ $0.group === output.group }) == true { running[kind] = nil }
        }
        await output.group.triggerGracefulShutdown()
        await output.task.value
        logger.notice("\(output.settings.name): stopped\(replaced ? ", replaced by its new settings" : "")")
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
