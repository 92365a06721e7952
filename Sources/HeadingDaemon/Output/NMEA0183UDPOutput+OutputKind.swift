// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension NMEA0183UDPOutput: OutputKind {
    /// Its settings are its configuration: equal ones, a kept output.
    typealias Settings = Configuration

    static var label: String? { "nmea0183_udp" }

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        settings.nmeaUDPTargets.isEmpty ? nil : Settings(targets: settings.nmeaUDPTargets, sender: settings.nmeaUDPSender.configuration)
    }

    static func name(of settings: Settings) -> String { "NMEA 0183 UDP output" }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        let output = NMEA0183UDPOutput(configuration: settings, services: context.services(for: self))
        try await output.open()
        return output
    }
}
