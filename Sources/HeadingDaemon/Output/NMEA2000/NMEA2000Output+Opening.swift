// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Logging
import NMEA2000

extension NMEA2000Output {
    /// The node these settings describe: its NAME's unique number and last address read from (or
    /// made and kept in) the state directory, what was found there logged; `localNode` is its
    /// presence on the bus, shared with the sources that read it.
    static func opening(
        _ settings: NMEA2000OutputSettings, interface: NMEA2000OutputSettings.Interface, center: any HeadingEventCenter, metrics: HeadingMetrics,
        localNode: NMEA2000LocalNode, logger: Logger
    ) -> NMEA2000Output {
        let store = NMEA2000NodeStore(directory: .process, defaultAddress: defaultAddress)
        if let damage = store.damage { logger.error("\(damage)") }
        if let note = store.note { logger.notice("\(note)") }
        let name = DeviceName(
            uniqueNumber: store.state.uniqueNumber, manufacturerCode: UInt16(clamping: settings.manufacturerCode),
            deviceInstance: UInt8(clamping: settings.deviceInstance), deviceFunction: UInt8(clamping: settings.deviceFunction),
            deviceClass: UInt8(clamping: settings.deviceClass), systemInstance: UInt8(clamping: settings.systemInstance)
        )
        let identity = NMEA2000Node.Identity(
            name: name, model: "headingd", softwareVersion: Headingd.version, serialCode: String(store.state.uniqueNumber),
            installationDescription: settings.installationDescription
        )
        return NMEA2000Output(
            configuration: Configuration(settings: settings, interface: interface, identity: identity, preferredAddress: store.state.address),
            center: center, metrics: metrics.output("nmea2000"), registry: metrics.registry, store: store.path == nil ? nil : store,
            localNode: localNode, logger: logger
        )
    }

    /// The address a new node claims first.
    static let defaultAddress: UInt8 = 35
}
