// headingd
// SPDX-License-Identifier: Apache-2.0

import Prometheus

/// One output's metrics, under its `output` label (`nmea0183_tcp`, `nmea0183_udp`,
/// `nmea0183_serial`, `signalk`): made by ``HeadingMetrics/output(_:)``, kept across reloads.
///
/// | metric | type | meaning |
/// |---|---|---|
/// | `headingd_output_clients` | gauge | clients connected now (stream clients for Signal K) |
/// | `headingd_output_clients_dropped_total` | counter | clients refused at the cap or disconnected for reading nothing |
/// | `headingd_output_messages_total` | counter | messages written: a heading's sentences (NMEA 0183, per client, UDP target or serial line), a delta (Signal K) |
/// | `headingd_output_messages_dropped_total` | counter | messages a slow client, a full UDP socket or a slow serial line never got |
struct OutputMetrics: Sendable {
    /// Clients connected now.
    let clients: Gauge
    /// Clients refused at the cap or disconnected for reading nothing.
    let clientsDropped: Counter
    /// Messages written.
    let messagesSent: Counter
    /// Messages dropped for a slow client.
    let messagesDropped: Counter

    /// Makes (or finds: the registry keeps one per name and labels) the metrics of `output`.
    init(output: String, registry: PrometheusCollectorRegistry) {
        let labels = [("output", output)]
        clients = registry.gauge(name: "headingd_output_clients", labels: labels, help: "Clients connected to the output")
        clientsDropped = registry.counter(name: "headingd_output_clients_dropped_total", labels: labels, help: "Clients refused at the cap or disconnected for reading nothing"
        )
        messagesSent = registry.counter(name: "headingd_output_messages_total", labels: labels, help: "Messages written: a heading's sentences to a client, or a Signal K delta"
        )
        messagesDropped = registry.counter(name: "headingd_output_messages_dropped_total", labels: labels, help: "Messages a slow client never got"
        )
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
