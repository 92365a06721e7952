// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Configuration

/// The options of what headingd prints.
struct OutputOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Exit 0 after printing this many headings (default: run until stopped).", valueName: "n"))
    var count: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Output format: 'text' (one readable line) or 'json' (one JSON object per line). (default: text)", valueName: "text|json"
        )
    )
    var format: String?

    @Flag(help: "Log headingd's own lifecycle at debug level on standard error.")
    var verbose = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Serve NMEA 0183 heading sentences over TCP on this address, such as 127.0.0.1:10110 (default: none; "
                + "a non-loopback address serves the network).", valueName: "host:port"
        )
    )
    var nmeaTcp: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The most NMEA 0183 TCP clients at once; the next is refused. (default: 16)", valueName: "n"))
    var nmeaTcpMaxClients: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The NMEA 0183 sentences for each heading, comma-separated, of HDT, HDM, HDG, THS and ROT. (default: HDT,HDG,THS)",
            valueName: "list"
        )
    )
    var nmeaSentences: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The NMEA 0183 talker, two letters. (default: II, integrated instrumentation)", valueName: "id"))
    var nmeaTalker: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The most NMEA 0183 headings a second; 0 sends every heading. (default: 10)", valueName: "hz"))
    var nmeaRate: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Send NMEA 0183 heading sentences in UDP datagrams to these HOST:PORT targets, comma-separated; a broadcast "
                + "address such as 192.168.1.255:10110 broadcasts. (default: none)", valueName: "targets"
        )
    )
    var nmeaUdp: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The UDP output's sentences, as --nmea-sentences. (default: HDT,HDG,THS)", valueName: "list"))
    var nmeaUdpSentences: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The UDP output's talker. (default: II)", valueName: "id"))
    var nmeaUdpTalker: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The UDP output's most headings a second; 0 sends every heading. (default: 10)", valueName: "hz"))
    var nmeaUdpRate: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Write NMEA 0183 heading sentences to this serial line, such as /dev/ttyUSB0, raw 8N1; a line that goes "
                + "away is reopened. (default: none)", valueName: "device"
        )
    )
    var nmeaSerial: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The serial line's baud rate: 4800, 9600, 19200, 38400, 57600 or 115200. (default: 4800)", valueName: "n"))
    var nmeaSerialBaud: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("The serial output's sentences, as --nmea-sentences. (default: HDT,HDG,THS)", valueName: "list"))
    var nmeaSerialSentences: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The serial output's talker. (default: II)", valueName: "id"))
    var nmeaSerialTalker: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The serial output's most headings a second; 0 sends every heading. (default: 5)", valueName: "hz"))
    var nmeaSerialRate: Double?

    @Flag(
        help: ArgumentHelp(
            "Serve headings as a Signal K source: discovery, the REST model and the WebSocket delta stream, on "
                + "--signalk-listen."
        )
    )
    var signalk = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The Signal K output's address. (default: 127.0.0.1:8375; a non-loopback address serves the network)",
            valueName: "host:port"
        )
    )
    var signalkListen: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The vessel's Signal K identity, urn:mrn:signalk:uuid:UUID or urn:mrn:imo:mmsi:MMSI. (default: one generated "
                + "once and kept in $STATE_DIRECTORY, else generated for the run)", valueName: "urn"
        )
    )
    var signalkSelf: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The most Signal K stream clients at once; the next is refused. (default: 16)", valueName: "n"))
    var signalkMaxClients: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("The most subscriptions one Signal K client may hold. (default: 64)", valueName: "n"))
    var signalkMaxSubscriptions: Int?

    @Flag(
        help: ArgumentHelp(
            "Serve Prometheus metrics at /metrics: on the Signal K output's listener when --signalk is on, "
                + "else on --http-listen."
        )
    )
    var metrics = false

    @Flag(
        help: ArgumentHelp(
            "Serve the status page at /, /status.json and /status/events (what `headingd status` reads): "
                + "on the Signal K output's listener when --signalk is on, else on --http-listen."
        )
    )
    var status = false

    @Flag(
        help: ArgumentHelp(
            "Keep the heading's history (once a second) and its faults, served by the Signal K output's History API at /signalk/v2/api/history/."
        )
    )
    var history = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Days of history kept. (default: 7)", valueName: "days"))
    var historyDays: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The history's file. (default: $STATE_DIRECTORY/history.sqlite, else in memory)", valueName: "path")
    )
    var historyFile: String?

    @Option(
        name: .customLong("http-listen"), parsing: .unconditional,
        help: ArgumentHelp(
            "Where the metrics and the status page are served when the Signal K output is off. "
                + "(default: 127.0.0.1:9947; a non-loopback address serves the network)",
            valueName: "host:port"
        )
    )
    var httpListen: String?

    @Option(
        name: .customLong("http-request-head-timeout"), parsing: .unconditional,
        help: ArgumentHelp("HTTP: seconds a connection has to send a whole request head (a slow client is closed). (default: 5)", valueName: "seconds")
    )
    var httpRequestHeadTimeout: Double?

    @Option(
        name: .customLong("http-idle-timeout"), parsing: .unconditional,
        help: ArgumentHelp("HTTP: seconds a connection may wait between requests before it is closed. (default: 30)", valueName: "seconds")
    )
    var httpIdleTimeout: Double?

    @Option(
        name: .customLong("http-max-connections"), parsing: .unconditional,
        help: ArgumentHelp(
            "HTTP: the most open connections; at the limit a new one closes the oldest that is idle or still sending its head. (default: 128)",
            valueName: "n"
        )
    )
    var httpMaxConnections: Int?

    @Option(
        name: .customLong("http-max-request-size"), parsing: .unconditional,
        help: ArgumentHelp("HTTP: the largest request, head and body, in bytes; a larger one is answered 413 and closed. (default: 65536)", valueName: "bytes")
    )
    var httpMaxRequestSize: Int?

    /// A `--count` below 1 is a value out of range: exit 78 (EX_CONFIG), as for every setting,
    /// not a usage error.
    func validate() throws {
        if let count, count < 1 {
            FileHandle.standardError.write(Data("headingd: configuration: option --count: must be at least 1, not \(count)\n".utf8))
            throw ExitCode(78)
        }
    }

    /// The options given, by configuration key (`--count` is not a setting: it belongs to one run).
    var settings: [String: ConfigContent] {
        optionSettings([
            "format": format.map(ConfigContent.string),
            "verbose": verbose ? .bool(true) : nil,
            "outputs.nmea0183.tcp.listen": nmeaTcp.map(ConfigContent.string),
            "outputs.nmea0183.tcp.max_clients": nmeaTcpMaxClients.map(ConfigContent.int),
            "outputs.nmea0183.tcp.sentences": nmeaSentences.map { .stringArray($0.split(separator: ",").map(String.init)) },
            "outputs.nmea0183.tcp.talker": nmeaTalker.map(ConfigContent.string),
            "outputs.nmea0183.tcp.rate": nmeaRate.map(ConfigContent.double),
            "outputs.nmea0183.udp.targets": nmeaUdp.map { .stringArray($0.split(separator: ",").map(String.init)) },
            "outputs.nmea0183.udp.sentences": nmeaUdpSentences.map { .stringArray($0.split(separator: ",").map(String.init)) },
            "outputs.nmea0183.udp.talker": nmeaUdpTalker.map(ConfigContent.string),
            "outputs.nmea0183.udp.rate": nmeaUdpRate.map(ConfigContent.double),
            "outputs.nmea0183.serial.device": nmeaSerial.map(ConfigContent.string),
            "outputs.nmea0183.serial.baud": nmeaSerialBaud.map(ConfigContent.int),
            "outputs.nmea0183.serial.sentences": nmeaSerialSentences.map { .stringArray($0.split(separator: ",").map(String.init)) },
            "outputs.nmea0183.serial.talker": nmeaSerialTalker.map(ConfigContent.string),
            "outputs.nmea0183.serial.rate": nmeaSerialRate.map(ConfigContent.double),
            "outputs.signalk.enabled": signalk ? .bool(true) : nil,
            "outputs.signalk.listen": signalkListen.map(ConfigContent.string),
            "outputs.signalk.self": signalkSelf.map(ConfigContent.string),
            "outputs.signalk.max_clients": signalkMaxClients.map(ConfigContent.int),
            "outputs.signalk.max_subscriptions": signalkMaxSubscriptions.map(ConfigContent.int),
            "metrics.enabled": metrics ? .bool(true) : nil,
            "status.enabled": status ? .bool(true) : nil,
            "history.enabled": history ? .bool(true) : nil,
            "history.days": historyDays.map(ConfigContent.double),
            "history.file": historyFile.map(ConfigContent.string),
            "http.listen": httpListen.map(ConfigContent.string),
            "http.request_head_timeout": httpRequestHeadTimeout.map(ConfigContent.double),
            "http.idle_timeout": httpIdleTimeout.map(ConfigContent.double),
            "http.max_connections": httpMaxConnections.map(ConfigContent.int),
            "http.max_request_size": httpMaxRequestSize.map(ConfigContent.int),
        ])
    }
}
