// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension NMEA0183SerialOutput: OutputKind {
    struct Settings: Equatable, Sendable {
        let device: String
        let baud: Int
        let sender: NMEA0183SenderSettings
    }

    static var label: String? { "nmea0183_serial" }

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        settings.nmeaSerialDevice.map { Settings(device: $0, baud: settings.nmeaSerialBaud, sender: settings.nmeaSerialSender) }
    }

    static func name(of settings: Settings) -> String { "NMEA 0183 serial output on \(settings.device)" }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        NMEA0183SerialOutput(
            configuration: .init(device: settings.device, baud: settings.baud, sender: settings.sender.configuration), services: context.services(label: "nmea0183_serial")
        )
    }
}
