// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension NMEA0183UDPOutput: OutputKind {
    struct Settings: Equatable, Sendable {
        let targets: [ListenAddress]
        let sender: NMEA0183SenderSettings
    }

    static var label: String? { "nmea0183_udp" }

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        settings.nmeaUDPTargets.isEmpty ? nil : Settings(targets: settings.nmeaUDPTargets, sender: settings.nmeaUDPSender)
    }

    static func name(of settings: Settings) -> String { "NMEA 0183 UDP output" }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        let output = NMEA0183UDPOutput(
            configuration: .init(targets: settings.targets, sender: settings.sender.configuration), services: context.services(label: "nmea0183_udp")
        )
        try await output.open()
        return output
    }
}
