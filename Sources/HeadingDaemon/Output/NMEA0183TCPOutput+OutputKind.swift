// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension NMEA0183TCPOutput: OutputKind {
    struct Settings: Equatable, Sendable {
        let address: ListenAddress
        let maximumClients: Int
        let sender: NMEA0183SenderSettings
    }

    static var label: String? { "nmea0183_tcp" }

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        settings.nmeaTCPListen.map { Settings(address: $0, maximumClients: settings.nmeaTCPMaxClients, sender: settings.nmeaTCPSender) }
    }

    static func name(of settings: Settings) -> String { "NMEA 0183 TCP output on \(settings.address)" }

    static func address(of settings: Settings) -> ListenAddress? { settings.address }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        let output = NMEA0183TCPOutput(
            configuration: .init(address: settings.address, maximumClients: settings.maximumClients, sender: settings.sender.configuration),
            services: context.services(label: "nmea0183_tcp")
        )
        try await output.bind()
        return output
    }
}
