// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import HeadingOutputs
import NMEA2000

extension DaemonSettings {
    /// A comment line for each source that chooses an NMEA 2000 device: which device, and what its
    /// NAME says of it (maker, function, instance), so that a NAME copied from a log is recognized.
    private var deviceComments: String {
        sources.enumerated().compactMap { index, source -> String? in
            switch source.selection.device {
            case .firstHeard: return nil
            case .address(let address):
                return "# source \(index + 1): the NMEA 2000 device at address \(address) (an address may change at power-up; a NAME does not)"
            case .name(let name):
                let details = [name.manufacturer.map { "maker \($0)" } ?? "maker code \(name.manufacturerCode)", name.function, "instance \(name.deviceInstance)"]
                    .compactMap { $0 }.joined(separator: ", ")
                return "# source \(index + 1): the NMEA 2000 device whose NAME is \(name) (\(details)), at whatever address it claims"
            }
        }.map { "\n" + $0 }.joined()
    }

    /// The settings as a TOML document, for `--check-config`.
    var tomlDescription: String {
        func quoted(_ text: String) -> String { JSONText.quoted(text) }
        return """
            source = [\(sources.map { quoted($0.description) }.joined(separator: ", "))]\(deviceComments)
            format = \(quoted(format.rawValue))
            filter = \(filter)
            min_course_speed = \(minimumCourseSpeed)
            require_checksum = \(requiresChecksum)
            verbose = \(verbose)
            stale_after = \(staleAfter)
            fail_back_hold = \(failBackHold)
            \(position.map { "position = \(quoted($0.description))" } ?? "# position: none (the sources' fixes only)")

            [replay]
            speed = \(quoted(replaySpeed.speed == .flatOut ? "max" : replaySpeed.multiplierDescription))
            loop = \(replayLoops)
            strict = \(replayStrict)

            [simulation]
            rate = \(rate)
            seed = \(seed)
            dropout_interval = \(dropoutInterval)
            dropout_duration = \(dropoutDuration)

            [disagreement]
            threshold = \(disagreementThreshold)
            hold = \(disagreementHold)

            [outputs.nmea0183.tcp]
            listen = \(quoted(nmeaTCPListen?.description ?? ""))
            max_clients = \(nmeaTCPMaxClients)
            \(nmeaTCPSender.tomlLines)

            [outputs.nmea0183.udp]
            targets = [\(nmeaUDPTargets.map { quoted($0.description) }.joined(separator: ", "))]
            \(nmeaUDPSender.tomlLines)

            [outputs.nmea0183.serial]
            device = \(quoted(nmeaSerialDevice ?? ""))
            baud = \(nmeaSerialBaud)
            \(nmeaSerialSender.tomlLines)

            [outputs.signalk]
            enabled = \(signalKEnabled)
            listen = \(quoted(signalKListen.description))
            self = \(quoted(signalKSelf ?? ""))
            max_clients = \(signalKMaxClients)
            max_subscriptions = \(signalKMaxSubscriptions)

            [outputs.mqtt]
            \(mqtt.tomlLines)

            [outputs.nmea2000]
            \(nmea2000.tomlLines)

            [history]
            enabled = \(historyEnabled)
            days = \(historyDays)
            file = \(quoted(historyFile ?? ""))

            [metrics]
            enabled = \(metricsEnabled)

            [status]
            enabled = \(statusEnabled)

            [http]
            listen = \(quoted(httpListen.description))
            request_head_timeout = \(httpLimits.requestHeadTimeout)
            idle_timeout = \(httpLimits.idleTimeout)
            max_connections = \(httpLimits.maximumConnections)
            max_request_size = \(httpLimits.maximumRequestSize)
            """
    }
}
