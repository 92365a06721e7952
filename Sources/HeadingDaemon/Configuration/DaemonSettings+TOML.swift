// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import HeadingOutputs

extension DaemonSettings {
    /// The settings as a TOML document, for `--check-config`.
    var tomlDescription: String {
        func quoted(_ text: String) -> String { JSONText.quoted(text) }
        return """
            source = [\(sources.map { quoted($0.description) }.joined(separator: ", "))]
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
            \(nmeaTCPFeed.tomlLines)

            [outputs.nmea0183.udp]
            targets = [\(nmeaUDPTargets.map { quoted($0.description) }.joined(separator: ", "))]
            \(nmeaUDPFeed.tomlLines)

            [outputs.nmea0183.serial]
            device = \(quoted(nmeaSerialDevice ?? ""))
            baud = \(nmeaSerialBaud)
            \(nmeaSerialFeed.tomlLines)

            [outputs.signalk]
            enabled = \(signalKEnabled)
            listen = \(quoted(signalKListen.description))
            self = \(quoted(signalKSelf ?? ""))
            max_clients = \(signalKMaxClients)
            max_subscriptions = \(signalKMaxSubscriptions)
            """
    }
}
