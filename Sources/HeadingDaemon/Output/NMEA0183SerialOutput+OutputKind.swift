// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension NMEA0183SerialOutput: OutputKind {
    /// Its settings are its configuration: equal ones, a kept output.
    typealias Settings = Configuration

    static var label: String? { "nmea0183_serial" }

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        settings.nmeaSerialDevice.map { Settings(device: $0, baud: settings.nmeaSerialBaud, sender: settings.nmeaSerialSender.configuration) }
    }

    static func name(of settings: Settings) -> String { "NMEA 0183 serial output on \(settings.device)" }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        NMEA0183SerialOutput(configuration: settings, services: context.services(for: self))
    }
}
