// headingd
// SPDX-License-Identifier: Apache-2.0

import Prometheus
import Synchronization

/// One output's metrics, under its `output` label (`nmea0183_tcp`, `nmea0183_udp`,
/// `nmea0183_serial`, `signalk`, `mqtt`, `nmea2000`): made by ``HeadingMetrics/output(_:)``, kept
/// across reloads. (The NMEA 2000 output registers its address, claim and write latency beside
/// these: ``NMEA2000Output``.)
///
/// | metric | type | meaning |
/// |---|---|---|
/// | `headingd_output_clients` | gauge | clients connected now (stream clients for Signal K) |
/// | `headingd_output_clients_dropped_total` | counter | clients refused at the cap or disconnected for reading nothing |
/// | `headingd_output_messages_total` | counter | messages written: a heading's sentences (NMEA 0183, per client, UDP target or serial line), a delta (Signal K), a 127250 (NMEA 2000) |
/// | `headingd_output_messages_dropped_total` | counter | messages a slow client, a full UDP socket or a slow serial line never got |
final class OutputMetrics: Sendable {
    /// The `output` label.
    let output: String
    /// Clients connected now.
    let clients: Level
    /// Clients refused at the cap or disconnected for reading nothing.
    let clientsDropped: Count
    /// Messages written.
    let messagesSent: Count
    /// Messages dropped for a slow client.
    let messagesDropped: Count
    /// What the output says of itself, for the status report (the NMEA 2000 node's address and
    /// claim); `nil` for nothing more than its counts.
    let state = Mutex<String?>(nil)

    /// Makes (or finds: the registry keeps one per name and labels) the metrics of `output`.
    /// ``HeadingMetrics/output(_:)`` keeps one per name, so that the values the status report
    /// reads are the ones the registry's collectors were given.
    init(output: String, registry: PrometheusCollectorRegistry) {
        self.output = output
        let labels = [("output", output)]
        clients = Level(registry.gauge(name: "headingd_output_clients", labels: labels, help: "Clients connected to the output"))
        clientsDropped = Count(registry.counter(
            name: "headingd_output_clients_dropped_total", labels: labels, help: "Clients refused at the cap or disconnected for reading nothing"
        ))
        messagesSent = Count(registry.counter(
            name: "headingd_output_messages_total", labels: labels, help: "Messages written: a heading's sentences to a client, a Signal K delta, or an MQTT message published"
        ))
        messagesDropped = Count(registry.counter(name: "headingd_output_messages_dropped_total", labels: labels, help: "Messages a slow client never got"))
    }

    /// What the status report shows of the output.
    var status: StatusReport.Output {
        StatusReport.Output(
            name: output, clients: Int(clients.value), clientsDropped: clientsDropped.value, messages: messagesSent.value,
            messagesDropped: messagesDropped.value, state: state.withLock { $0 }
        )
    }

    /// A Prometheus counter whose value can be read back (one more relaxed atomic add).
    final class Count: Sendable {
        private let collector: Counter
        private let atomic = Atomic<Int64>(0)
        init(_ collector: Counter) { self.collector = collector }
        /// Adds `amount`.
        func increment(by amount: Int64 = 1) {
            collector.increment(by: amount)
            atomic.add(amount, ordering: .relaxed)
        }
        /// The count so far.
        var value: Int64 { atomic.load(ordering: .relaxed) }
    }

    /// A Prometheus gauge of a whole number whose value can be read back.
    final class Level: Sendable {
        private let collector: Gauge
        private let atomic = Atomic<Int64>(0)
        init(_ collector: Gauge) { self.collector = collector }
        /// Sets the level.
        func set(to value: Double) {
            collector.set(to: value)
            atomic.store(Int64(clamping: Int(exactly: value.rounded()) ?? 0), ordering: .relaxed)
        }
        /// The level now.
        var value: Int64 { atomic.load(ordering: .relaxed) }
    }
}

extension PrometheusCollectorRegistry {
    /// A counter named in full (`headingd_…_total`), with its help text and labels.
    func counter(name: String, labels: [(String, String)] = [], help: String) -> Counter {
        makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    /// A gauge named in full, with its help text and labels.
    func gauge(name: String, labels: [(String, String)] = [], help: String) -> Gauge {
        makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }
}
