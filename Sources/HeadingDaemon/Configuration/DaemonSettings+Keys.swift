// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import Foundation
import HeadingKit
import HeadingOutputs

extension DaemonSettings {
    /// Every key headingd reads, with its checks.
    static let keys: [SettingKey] = [
        SettingKey(name: "source", option: "--source", kind: .stringList) { content in
            guard case .stringArray(let texts) = content, !texts.isEmpty else { return "must name at least one source" }
            for text in texts {
                if case .failure(let error) = SourceSpecification.parse(text) { return error.reason }
            }
            return nil
        },
        SettingKey(name: "format", option: "--format", kind: .string) { content in
            guard case .string(let text) = content, OutputFormat(rawValue: text) != nil else { return "must be 'text' or 'json'" }
            return nil
        },
        SettingKey(name: "filter", option: "--filter", kind: .double) { number($0, in: 0...180, "between 0 and 180 degrees") },
        SettingKey(name: "min_course_speed", option: "--min-course-speed", kind: .double) { number($0, in: 0...1000, "between 0 and 1000 m/s") },
        SettingKey(name: "verbose", option: "--verbose", kind: .bool),
        SettingKey(name: "require_checksum", option: "--require-checksum", kind: .bool),
        SettingKey(name: "replay.speed", option: "--speed", kind: .string) { content in
            guard case .string(let text) = content, ReplaySpeedSetting(argument: text) != nil else {
                return "must be a multiple from 0.001 to 1000000 (\"10\") or \"max\""
            }
            return nil
        },
        SettingKey(name: "replay.loop", option: "--loop", kind: .bool),
        SettingKey(name: "replay.strict", option: "--strict", kind: .bool),
        SettingKey(name: "simulation.rate", option: "--rate", kind: .double) { number($0, in: 0.001...100_000, "above 0 and at most 100000 Hz") },
        SettingKey(name: "simulation.seed", option: "--seed", kind: .integer) { content in
            guard case .int(let seed) = content, seed >= 0 else { return "must be 0 or more" }
            return nil
        },
        SettingKey(name: "simulation.dropout_interval", option: "--dropout-interval", kind: .double) { number($0, in: 0...86_400, "between 0 and 86400 s") },
        SettingKey(name: "simulation.dropout_duration", option: "--dropout-duration", kind: .double) { number($0, in: 0.001...86_400, "above 0 s") },
        SettingKey(name: "stale_after", option: "--stale-after", kind: .double) { number($0, in: 0.01...3600, "between 0.01 and 3600 seconds") },
        SettingKey(name: "fail_back_hold", option: "--fail-back-hold", kind: .double) { number($0, in: 0...3600, "between 0 and 3600 seconds") },
        SettingKey(name: "disagreement.threshold", option: "--disagreement", kind: .double) { number($0, in: 0...180, "between 0 (never) and 180 degrees") },
        SettingKey(name: "disagreement.hold", option: "--disagreement-hold", kind: .double) { number($0, in: 0...3600, "between 0 and 3600 seconds") },
        SettingKey(name: "position", option: "--position", kind: .string) { content in
            guard case .string(let text) = content, parsePosition(text) != nil else {
                return "must be LATITUDE,LONGITUDE[,ALTITUDE], such as 54.32,10.14 (degrees North within ±90 and East within ±180, metres above the ellipsoid from -1000 to 100000)"
            }
            return nil
        },
        SettingKey(name: "outputs.nmea0183.tcp.listen", option: "--nmea-tcp", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || ListenAddress(text) != nil else {
                return "must be HOST:PORT, such as 127.0.0.1:10110 or [::1]:10110, or \"\" for no NMEA 0183 TCP output"
            }
            return nil
        },
        SettingKey(name: "outputs.nmea0183.tcp.max_clients", option: "--nmea-tcp-max-clients", kind: .integer) { content in
            guard case .int(let count) = content, (1...1024).contains(count) else { return "must be from 1 to 1024" }
            return nil
        },
        SettingKey(name: "outputs.nmea0183.tcp.sentences", option: "--nmea-sentences", kind: .stringList, check: sentenceList),
        SettingKey(name: "outputs.nmea0183.tcp.talker", option: "--nmea-talker", kind: .string, check: talker),
        SettingKey(name: "outputs.nmea0183.tcp.rate", option: "--nmea-rate", kind: .double, check: outputRate),
        SettingKey(name: "outputs.nmea0183.udp.targets", option: "--nmea-udp", kind: .stringList) { content in
            guard case .stringArray(let texts) = content, texts.count <= 64, texts.allSatisfy({ ListenAddress($0) != nil }) else {
                return "must list HOST:PORT targets (at most 64), such as 192.168.1.255:10110, or none"
            }
            return nil
        },
        SettingKey(name: "outputs.nmea0183.udp.sentences", option: "--nmea-udp-sentences", kind: .stringList, check: sentenceList),
        SettingKey(name: "outputs.nmea0183.udp.talker", option: "--nmea-udp-talker", kind: .string, check: talker),
        SettingKey(name: "outputs.nmea0183.udp.rate", option: "--nmea-udp-rate", kind: .double, check: outputRate),
        SettingKey(name: "outputs.nmea0183.serial.device", option: "--nmea-serial", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || (text.hasPrefix("/") && text.utf8.count <= 4096) else {
                return "must be a device path such as /dev/ttyUSB0, or \"\" for no NMEA 0183 serial output"
            }
            return nil
        },
        SettingKey(name: "outputs.nmea0183.serial.baud", option: "--nmea-serial-baud", kind: .integer) { content in
            guard case .int(let baud) = content, NMEA0183SerialOutput.baudRates[baud] != nil else {
                return "must be one of 4800, 9600, 19200, 38400, 57600 and 115200"
            }
            return nil
        },
        SettingKey(name: "outputs.nmea0183.serial.sentences", option: "--nmea-serial-sentences", kind: .stringList, check: sentenceList),
        SettingKey(name: "outputs.nmea0183.serial.talker", option: "--nmea-serial-talker", kind: .string, check: talker),
        SettingKey(name: "outputs.nmea0183.serial.rate", option: "--nmea-serial-rate", kind: .double, check: outputRate),
        SettingKey(name: "outputs.signalk.enabled", option: "--signalk", kind: .bool),
        SettingKey(name: "outputs.signalk.listen", option: "--signalk-listen", kind: .string) { content in
            guard case .string(let text) = content, ListenAddress(text) != nil else {
                return "must be HOST:PORT, such as 127.0.0.1:8375 or [::1]:8375"
            }
            return nil
        },
        SettingKey(name: "outputs.signalk.self", option: "--signalk-self", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || SignalKDeltaEncoder.isVesselURN(text) else {
                return "must be urn:mrn:signalk:uuid: and a version 4 UUID, or urn:mrn:imo:mmsi: and the MMSI's nine digits, or \"\" to generate one"
            }
            return nil
        },
        SettingKey(name: "outputs.signalk.max_clients", option: "--signalk-max-clients", kind: .integer) { content in
            guard case .int(let count) = content, (1...1024).contains(count) else { return "must be from 1 to 1024" }
            return nil
        },
        SettingKey(name: "outputs.signalk.max_subscriptions", option: "--signalk-max-subscriptions", kind: .integer) { content in
            guard case .int(let count) = content, (1...1024).contains(count) else { return "must be from 1 to 1024" }
            return nil
        },
        SettingKey(name: "outputs.mqtt.broker", option: "--mqtt", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || MQTTSettings.Broker(text) != nil else {
                return "must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS), or \"\" for none"
            }
            return nil
        },
        SettingKey(name: "outputs.mqtt.prefix", option: "--mqtt-prefix", kind: .string) { content in
            guard case .string(let text) = content,
                text.isEmpty || (!text.contains("+") && !text.contains("#") && !text.hasPrefix("/") && !text.hasSuffix("/") && text.utf8.count <= 1024)
            else { return "must be a topic without wildcards (+, #) and without a leading or trailing /" }
            return nil
        },
        SettingKey(name: "outputs.mqtt.client_id", option: "--mqtt-client-id", kind: .string) { content in
            guard case .string(let text) = content, text.utf8.count <= 256, !text.contains("\u{0}") else { return "must be at most 256 bytes" }
            return nil
        },
        SettingKey(name: "outputs.mqtt.username", option: "--mqtt-username", kind: .string) { content in
            guard case .string(let text) = content, text.utf8.count <= 1024 else { return "must be at most 1024 bytes" }
            return nil
        },
        SettingKey(name: "outputs.mqtt.password_file", option: "--mqtt-password-file", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || text.hasPrefix("/") else { return "must be an absolute path, or \"\"" }
            return nil
        },
        SettingKey(name: "outputs.mqtt.ca_file", option: "--mqtt-ca-file", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || text.hasPrefix("/") else { return "must be an absolute path, or \"\"" }
            return nil
        },
        SettingKey(name: "outputs.mqtt.cert_file", option: "--mqtt-cert-file", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || text.hasPrefix("/") else { return "must be an absolute path, or \"\"" }
            return nil
        },
        SettingKey(name: "outputs.mqtt.key_file", option: "--mqtt-key-file", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || text.hasPrefix("/") else { return "must be an absolute path, or \"\"" }
            return nil
        },
        SettingKey(name: "outputs.mqtt.rate", option: "--mqtt-rate", kind: .double) { number($0, in: 0.01...50, "between 0.01 and 50 a second") },
        SettingKey(name: "outputs.mqtt.keepalive", option: "--mqtt-keepalive", kind: .integer) { content in
            guard case .int(let seconds) = content, (5...3600).contains(seconds) else { return "must be from 5 to 3600 seconds" }
            return nil
        },
        SettingKey(name: "outputs.mqtt.journal", option: "--mqtt-journal", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || text.hasPrefix("/") else { return "must be an absolute path, or \"\"" }
            return nil
        },
        SettingKey(name: "history.enabled", option: "--history", kind: .bool),
        SettingKey(name: "history.days", option: "--history-days", kind: .double) { number($0, in: 0.01...366, "between 0.01 and 366 days") },
        SettingKey(name: "history.file", option: "--history-file", kind: .string) { content in
            guard case .string(let text) = content, text.isEmpty || text.hasPrefix("/") else { return "must be an absolute path, or \"\"" }
            return nil
        },
        SettingKey(name: "metrics.enabled", option: "--metrics", kind: .bool),
        SettingKey(name: "status.enabled", option: "--status", kind: .bool),
        SettingKey(name: "http.listen", option: "--http-listen", kind: .string) { content in
            guard case .string(let text) = content, ListenAddress(text) != nil else {
                return "must be HOST:PORT, such as 127.0.0.1:9947 or [::1]:9947"
            }
            return nil
        },
        SettingKey(name: "http.request_head_timeout", option: "--http-request-head-timeout", kind: .double) {
            number($0, in: 0.1...300, "between 0.1 and 300 seconds")
        },
        SettingKey(name: "http.idle_timeout", option: "--http-idle-timeout", kind: .double) { number($0, in: 0.1...3600, "between 0.1 and 3600 seconds") },
        SettingKey(name: "http.max_connections", option: "--http-max-connections", kind: .integer) { content in
            guard case .int(let count) = content, (1...65_536).contains(count) else { return "must be from 1 to 65536" }
            return nil
        },
        SettingKey(name: "http.max_request_size", option: "--http-max-request-size", kind: .integer) { content in
            guard case .int(let size) = content, (1024...16_777_216).contains(size) else { return "must be from 1024 to 16777216 bytes" }
            return nil
        },
    ] + NMEA2000OutputSettings.keys

    /// A list of NMEA 0183 sentence types the encoder writes.
    private static func sentenceList(_ content: ConfigContent) -> String? {
        guard case .stringArray(let names) = content, !names.isEmpty, names.allSatisfy({ NMEA0183Encoder.Sentence(rawValue: $0) != nil })
        else { return "must list one or more of HDT, HDM, HDG, THS and ROT" }
        return nil
    }

    /// An NMEA 0183 output's maximum rate.
    private static func outputRate(_ content: ConfigContent) -> String? {
        number(content, in: 0...100, "between 0 (every heading) and 100 Hz")
    }

    /// An NMEA 0183 talker.
    private static func talker(_ content: ConfigContent) -> String? {
        guard case .string(let text) = content, NMEA0183Encoder(talker: text) != nil else {
            return "must be two uppercase letters or digits, such as II, HE or GP"
        }
        return nil
    }

    /// A position written `LATITUDE,LONGITUDE[,ALTITUDE]`: latitude within ±90°, longitude within
    /// ±180°, altitude from −1 km to 100 km (the World Magnetic Model's own range is −1 km to 850 km;
    /// a vessel is far below its top).
    static func parsePosition(_ text: String) -> GeographicPosition? {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard (2...3).contains(numbers.count), let latitude = numbers[0], let longitude = numbers[1],
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return nil }
        let altitude = numbers.count == 3 ? numbers[2] : nil
        if numbers.count == 3 { guard let altitude, (-1000...100_000).contains(altitude) else { return nil } }
        return GeographicPosition(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    fileprivate static func number(_ content: ConfigContent, in range: ClosedRange<Double>, _ phrase: String) -> String? {
        guard case .double(let value) = content, value.isFinite, range.contains(value) else { return "must be \(phrase)" }
        return nil
    }
}
