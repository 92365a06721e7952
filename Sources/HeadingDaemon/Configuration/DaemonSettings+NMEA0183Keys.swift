// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import HeadingKit
import HeadingOutputs

extension DaemonSettings {
    /// The NMEA 0183 outputs' keys: TCP, UDP and serial (`[outputs.nmea0183.*]`).
    static let nmea0183Keys: [SettingKey] = [
        SettingKey(
            name: "outputs.nmea0183.tcp.listen", option: "--nmea-tcp", kind: .string, group: .output,
            field: .optionalParsed(\.nmeaTCPListen, ListenAddress.init, \.description), valueName: "host:port",
            help: "Serve NMEA 0183 heading sentences over TCP on this address, such as 127.0.0.1:10110",
            file: "Serve NMEA 0183 heading sentences over TCP (OpenCPN, pypilot, Signal K servers read them; 10110 is "
                + "the convention): HOST:PORT, or \"\" for none. Loopback serves this machine only; a LAN address (or "
                + "0.0.0.0) serves the network, and the unit's IPAddressAllow= must allow it too (README).", defaultNote: "; a non-loopback address serves the network") { content in
            guard case .string(let text) = content, text.isEmpty || ListenAddress(text) != nil else {
                return "must be HOST:PORT, such as 127.0.0.1:10110 or [::1]:10110, or \"\" for no NMEA 0183 TCP output"
            }
            return nil
        },
        SettingKey(
            name: "outputs.nmea0183.tcp.max_clients", option: "--nmea-tcp-max-clients", kind: .integer, group: .output,
            field: .integer(\.nmeaTCPMaxClients), valueName: "n",
            help: "The most NMEA 0183 TCP clients at once; the next is refused.",
            file: "The most clients at once; the next connection is refused (one log line).") { integer($0, in: 1...1024) },
        SettingKey(
            name: "outputs.nmea0183.tcp.sentences", option: "--nmea-sentences", kind: .stringList, group: .output,
            field: .list(\.nmeaTCPSender.sentences, NMEA0183Encoder.Sentence.init(rawValue:), \.rawValue), valueName: "list",
            help: "The NMEA 0183 sentences for each heading, comma-separated, of HDT, HDM, HDG, THS and ROT.",
            file: "The sentences written for each heading: HDT (true), HDM (magnetic), HDG (magnetic sensor heading "
                + "with deviation and variation where known), THS (true, with mode A/E/S, or V with no heading while no "
                + "source is healthy), ROT (rate of turn, degrees a minute, negative to port).", check: sentenceList),
        SettingKey(
            name: "outputs.nmea0183.tcp.talker", option: "--nmea-talker", kind: .string, group: .output,
            field: .text(\.nmeaTCPSender.talker), valueName: "id",
            help: "The NMEA 0183 talker, two letters.",
            file: "The talker: II (integrated instrumentation), as headingd's heading is chosen and corrected from one "
                + "or more sensors.", defaultNote: ", integrated instrumentation", check: talker),
        SettingKey(
            name: "outputs.nmea0183.tcp.rate", option: "--nmea-rate", kind: .double, group: .output,
            field: .number(\.nmeaTCPSender.rate), valueName: "hz",
            help: "The most NMEA 0183 headings a second; 0 sends every heading.",
            file: "At most this many headings a second, the newest winning; 0 sends every heading.", check: outputRate),
        SettingKey(
            name: "outputs.nmea0183.udp.targets", option: "--nmea-udp", kind: .stringList, group: .output,
            field: .list(\.nmeaUDPTargets, ListenAddress.init, \.description), valueName: "targets",
            help: "Send NMEA 0183 heading sentences in UDP datagrams to these HOST:PORT targets, comma-separated; a "
                + "broadcast address such as 192.168.1.255:10110 broadcasts.",
            file: "Send NMEA 0183 heading sentences in UDP datagrams, one per heading, to each HOST:PORT listed; a "
                + "broadcast address (192.168.1.255:10110) broadcasts. None by default. Under the unit, the address "
                + "must also be allowed (IPAddressAllow=, README).") { content in
            guard case .stringArray(let texts) = content, texts.count <= 64, texts.allSatisfy({ ListenAddress($0) != nil }) else {
                return "must list HOST:PORT targets (at most 64), such as 192.168.1.255:10110, or none"
            }
            return nil
        },
        SettingKey(
            name: "outputs.nmea0183.udp.sentences", option: "--nmea-udp-sentences", kind: .stringList, group: .output,
            field: .list(\.nmeaUDPSender.sentences, NMEA0183Encoder.Sentence.init(rawValue:), \.rawValue), valueName: "list",
            help: "The UDP output's sentences, as --nmea-sentences.",
            file: "As for TCP: the sentences, the talker, and the most headings a second (0 for every heading).", check: sentenceList),
        SettingKey(
            name: "outputs.nmea0183.udp.talker", option: "--nmea-udp-talker", kind: .string, group: .output,
            field: .text(\.nmeaUDPSender.talker), valueName: "id",
            help: "The UDP output's talker.",
            file: "", check: talker),
        SettingKey(
            name: "outputs.nmea0183.udp.rate", option: "--nmea-udp-rate", kind: .double, group: .output,
            field: .number(\.nmeaUDPSender.rate), valueName: "hz",
            help: "The UDP output's most headings a second; 0 sends every heading.",
            file: "", check: outputRate),
        SettingKey(
            name: "outputs.nmea0183.serial.device", option: "--nmea-serial", kind: .string, group: .output,
            field: .optionalText(\.nmeaSerialDevice), valueName: "device",
            help: "Write NMEA 0183 heading sentences to this serial line, such as /dev/ttyUSB0, raw 8N1; a line that "
                + "goes away is reopened.",
            file: "Write NMEA 0183 heading sentences to a serial line (an autopilot or plotter wired to this computer), "
                + "raw 8N1: a device path such as /dev/ttyUSB0, or \"\" for none. A line that cannot be opened or goes "
                + "away is a fault, reopened with backoff. Under the unit, the device must also be allowed "
                + "(systemd/drop-ins/serial-output.conf).") { content in
            guard case .string(let text) = content, text.isEmpty || (text.hasPrefix("/") && text.utf8.count <= 4096) else {
                return "must be a device path such as /dev/ttyUSB0, or \"\" for no NMEA 0183 serial output"
            }
            return nil
        },
        SettingKey(
            name: "outputs.nmea0183.serial.baud", option: "--nmea-serial-baud", kind: .integer, group: .output,
            field: .integer(\.nmeaSerialBaud), valueName: "n",
            help: "The serial line's baud rate: 4800, 9600, 19200, 38400, 57600 or 115200.",
            file: "4800 (NMEA 0183's own), 9600, 19200, 38400 (NMEA 0183 HS), 57600 or 115200.") { content in
            guard case .int(let baud) = content, NMEAStreamEndpoint.baudRates.contains(baud) else {
                return "must be one of 4800, 9600, 19200, 38400, 57600 and 115200"
            }
            return nil
        },
        SettingKey(
            name: "outputs.nmea0183.serial.sentences", option: "--nmea-serial-sentences", kind: .stringList, group: .output,
            field: .list(\.nmeaSerialSender.sentences, NMEA0183Encoder.Sentence.init(rawValue:), \.rawValue), valueName: "list",
            help: "The serial output's sentences, as --nmea-sentences.",
            file: "", check: sentenceList),
        SettingKey(
            name: "outputs.nmea0183.serial.talker", option: "--nmea-serial-talker", kind: .string, group: .output,
            field: .text(\.nmeaSerialSender.talker), valueName: "id",
            help: "The serial output's talker.",
            file: "", check: talker),
        SettingKey(
            name: "outputs.nmea0183.serial.rate", option: "--nmea-serial-rate", kind: .double, group: .output,
            field: .number(\.nmeaSerialSender.rate), valueName: "hz",
            help: "The serial output's most headings a second; 0 sends every heading.",
            file: "At 4800 baud a line carries about 480 characters a second: 5 headings of three sentences.", check: outputRate),
    ]

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
}
