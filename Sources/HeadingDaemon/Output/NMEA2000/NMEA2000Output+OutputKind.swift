// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension NMEA2000Output: OutputKind {
    struct Settings: Equatable, Sendable {
        let settings: NMEA2000OutputSettings
        let interface: NMEA2000OutputSettings.Interface
    }

    static var label: String? { "nmea2000" }
    /// One node is one NAME on the bus: two would contest their own address.
    static var isExclusive: Bool { true }

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings? {
        settings.nmea2000.interface.map { Settings(settings: settings.nmea2000, interface: $0) }
    }

    static func name(of settings: Settings) -> String { "NMEA 2000 output on \(settings.interface)" }

    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service {
        opening(
            settings.settings, interface: settings.interface, center: context.fanOut, metrics: context.metrics,
            localNode: context.buses.node(on: settings.interface), logger: context.logger
        )
    }
}
