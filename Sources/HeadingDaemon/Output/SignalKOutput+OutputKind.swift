// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension SignalKOutput: OutputKind {
    struct Settings: Equatable, Sendable {
        let address: ListenAddress
        let selfURN: String?
        let maximumClients: Int
        let maximumSubscriptions: Int
        let limits: HTTPLimits
        let servesMetrics: Bool
        let servesStatus: Bool
        let history: HistoryStore?
    }

    static var label: String? { "signalk" }

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        guard settings.signalKEnabled else { return nil }
        return Settings(
            address: settings.signalKListen, selfURN: settings.signalKSelf, maximumClients: settings.signalKMaxClients,
            maximumSubscriptions: settings.signalKMaxSubscriptions, limits: settings.httpLimits, servesMetrics: settings.metricsEnabled,
            servesStatus: settings.statusEnabled, history: history
        )
    }

    static func name(of settings: Settings) -> String { "Signal K output on \(settings.address)" }

    static func address(of settings: Settings) -> ListenAddress? { settings.address }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        let urn = settings.selfURN ?? context.signalKSelf()
        let logger = context.logger
        let output = SignalKOutput(
            configuration: .init(
                address: settings.address, selfURN: urn, maximumClients: settings.maximumClients, maximumSubscriptions: settings.maximumSubscriptions,
                limits: settings.limits, metrics: settings.servesMetrics ? context.metrics : nil, outputMetrics: context.metrics.output("signalk"),
                status: settings.servesStatus ? context.status : nil,
                history: try settings.history.map { HistoryRoutes(history: try $0.open(logger: logger), context: "vessels.\(urn)") }
            ),
            center: context.fanOut, logger: logger
        )
        try await output.bind()
        return output
    }
}
