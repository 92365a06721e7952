// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import Foundation
import HeadingKit
import HeadingOutputs

/// headingd's effective settings, after files, drop-ins, environment and flags (see
/// ``SettingsLoader``), with the defaults for whatever none of them sets.
struct DaemonSettings: Sendable, Equatable {
    /// The sources in priority order.
    var sources = [SourceSpecification.simulation]
    var format = OutputFormat.text
    var filter = 0.0
    var minimumCourseSpeed = 0.5
    /// Whether an NMEA sentence without a checksum is refused (replay and gpsd).
    var requiresChecksum = false
    var verbose = false
    var replaySpeed = ReplaySpeedSetting(speed: .asRecorded)
    var replayLoops = false
    var replayStrict = false
    var rate = 10.0
    var seed: UInt64 = 1
    var dropoutInterval = 30.0
    var dropoutDuration = 3.0
    /// Seconds without a heading before a source is stale.
    var staleAfter = 2.0
    /// Seconds a better source must be healthy before headings fail back to it.
    var failBackHold = 5.0
    /// Degrees two healthy sources may disagree by before a fault; 0 for never.
    var disagreementThreshold = 10.0
    /// Seconds a disagreement must last before the fault.
    var disagreementHold = 10.0
    /// The vessel's position when no source reports one, for the World Magnetic Model.
    var position: GeographicPosition?
    /// Where the NMEA 0183 TCP output listens; `nil` for none (the default).
    var nmeaTCPListen: ListenAddress?
    /// How many NMEA 0183 TCP clients at once; the next is refused.
    var nmeaTCPMaxClients = 16
    /// What the NMEA 0183 TCP output writes, and how often.
    var nmeaTCPSender = NMEA0183SenderSettings()
    /// Where the NMEA 0183 UDP output sends datagrams; none by default.
    var nmeaUDPTargets: [ListenAddress] = []
    /// What the NMEA 0183 UDP output writes, and how often.
    var nmeaUDPSender = NMEA0183SenderSettings()
    /// The serial line the NMEA 0183 serial output writes to; `nil` for none (the default).
    var nmeaSerialDevice: String?
    /// The serial line's baud rate.
    var nmeaSerialBaud = 4800
    /// What the NMEA 0183 serial output writes, and how often (5 Hz: at 4800 baud, 10 Hz of three
    /// sentences fills the line).
    var nmeaSerialSender = NMEA0183SenderSettings(rate: 5)
    /// Whether the Signal K output serves (off by default).
    var signalKEnabled = false
    /// Where the Signal K output listens: loopback, on a port clear of a Signal K server (3000)
    /// and gpsd (2947).
    var signalKListen = ListenAddress("127.0.0.1:8375")!
    /// The vessel's Signal K identity; `nil` to use the one kept in the state directory.
    var signalKSelf: String?
    /// How many Signal K stream clients at once; the next is refused.
    var signalKMaxClients = 16
    /// Whether `/metrics` is served (Prometheus' text format): on the Signal K output's listener
    /// when that runs, else on ``httpListen``.
    var metricsEnabled = false
    /// Whether the heading's history is kept (and served by the Signal K output's History API).
    var historyEnabled = false
    /// How many days of history are kept.
    var historyDays = 7.0
    /// The history's file; `nil` for `$STATE_DIRECTORY/history.sqlite`, else in memory.
    var historyFile: String?
    /// The MQTT output (`[outputs.mqtt]`): off while it names no broker.
    var mqtt = MQTTSettings()
    /// The NMEA 2000 output (`[outputs.nmea2000]`): off while it names no interface.
    var nmea2000 = NMEA2000OutputSettings()
    /// Whether the status page (`/`), `/status.json` and its event stream are served, on the
    /// same listener as the metrics.
    var statusEnabled = false
    /// headingd's own HTTP listener, for the metrics and the status page when the Signal K
    /// output is off.
    var httpListen = ListenAddress("127.0.0.1:9947")!
    /// Whether an HTTP service (metrics, status) is on.
    var servesHTTP: Bool { metricsEnabled || statusEnabled }
    /// How the HTTP listener (Signal K, and every HTTP service after it) defends itself.
    var httpLimits = HTTPLimits()
    /// How many subscriptions one Signal K client may hold.
    var signalKMaxSubscriptions = 64

    /// The processor's configuration these settings give.
    var processorConfiguration: HeadingProcessor.Configuration {
        HeadingProcessor.Configuration(
            staleAfter: .milliseconds(Int((staleAfter * 1000).rounded())),
            failBackHold: .milliseconds(Int((failBackHold * 1000).rounded())),
            disagreementThreshold: disagreementThreshold > 0 ? disagreementThreshold : nil,
            disagreementHold: .milliseconds(Int((disagreementHold * 1000).rounded())),
            fixedPosition: position,
            headingFilter: filter
        )
    }

    /// The settings a reader gives, with defaults for what it does not have: each key's field
    /// (``SettingKey/field``) set from the reader's value.
    init(reader: ConfigReader) {
        for key in Self.keys { key.field.read(reader, ConfigKey(stringLiteral: key.name), &self) }
    }

    /// The defaults.
    init() {}
}
