// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension HTTPOutput: OutputKind {
    struct Settings: Equatable, Sendable {
        let address: ListenAddress
        let limits: HTTPLimits
        let servesMetrics: Bool
        let servesStatus: Bool
    }

    /// headingd's own HTTP listener, for the metrics and the status service, when the Signal K
    /// output (which serves them beside its own) is off.
    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        guard !settings.signalKEnabled, settings.servesHTTP else { return nil }
        return Settings(address: settings.httpListen, limits: settings.httpLimits, servesMetrics: settings.metricsEnabled, servesStatus: settings.statusEnabled)
    }

    static func name(of settings: Settings) -> String { "HTTP listener on \(settings.address)" }

    static func address(of settings: Settings) -> ListenAddress? { settings.address }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        let output = HTTPOutput(
            configuration: .init(address: settings.address, limits: settings.limits), metrics: settings.servesMetrics ? context.metrics : nil,
            status: settings.servesStatus ? context.status : nil, logger: context.logger
        )
        try await output.bind()
        return output
    }
}
