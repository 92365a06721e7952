// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension NMEA0183TCPOutput: OutputKind {
    /// Its settings are its configuration: equal ones, a kept output.
    typealias Settings = Configuration

    static var label: String? { "nmea0183_tcp" }

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        settings.nmeaTCPListen.map { Settings(address: $0, maximumClients: settings.nmeaTCPMaxClients, sender: settings.nmeaTCPSender.configuration) }
    }

    static func name(of settings: Settings) -> String { "NMEA 0183 TCP output on \(settings.address)" }

    static func address(of settings: Settings) -> ListenAddress? { settings.address }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        let output = NMEA0183TCPOutput(configuration: settings, services: context.services(for: self))
        try await output.bind()
        return output
    }
}
