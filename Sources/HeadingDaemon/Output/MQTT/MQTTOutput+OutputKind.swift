// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension MQTTOutput: OutputKind {
    struct Settings: Equatable, Sendable {
        let settings: MQTTSettings
        let broker: MQTTSettings.Broker
        let selfURN: String?
        let staleAfter: Double
    }

    static var label: String? { "mqtt" }
    /// One vessel is one MQTT client: a new connection would take the old one's session, and the
    /// old one's clean stop would then say offline after the new one said online.
    static var isExclusive: Bool { true }

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        settings.mqtt.broker.map { Settings(settings: settings.mqtt, broker: $0, selfURN: settings.signalKSelf, staleAfter: settings.staleAfter) }
    }

    static func name(of settings: Settings) -> String { "MQTT output to \(settings.broker)" }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        let output = MQTTOutput(
            configuration: .init(settings: settings.settings, broker: settings.broker, selfURN: settings.selfURN ?? context.signalKSelf(), staleAfter: settings.staleAfter),
            services: context.services(for: self), registry: context.metrics.registry
        )
        try output.open()
        return output
    }
}
