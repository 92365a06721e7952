// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import Foundation
import HeadingKit
import HeadingOutputs

extension DaemonSettings {
    /// Every key headingd reads, with its checks.
    static let keys: [SettingKey] = [
        SettingKey(
            name: "source", option: "--source", kind: .stringList, group: .sources,
            field: .list(\.sources, SourceSpecification.init(argument:), \.description), valueName: "source",
            help: "Where headings come from: \(SourceSpecification.acceptedForms). Give it more than once for several sources, best first: "
                + "headings come from the best healthy one.",
            file: "Where headings come from: \"simulation\", \"replay:PATH\", \"gpsd://HOST:PORT[/DEVICE]\" (\"gpsd\" alone is "
                + "gpsd://127.0.0.1:2947), or NMEA 0183 straight from the instruments: \"serial:///dev/ttyUSB0\" "
                + "(?baud=4800 by default; 9600 … 115200 or auto; &format=ubx for a u-blox receiver's RELPOSNED), "
                + "\"tcp://HOST:PORT\" (a multiplexer or gateway; ?no_data_timeout=SECONDS, 10 by default), "
                + "\"udp://:10110\" (a WiFi gateway's datagrams), \"stdin:\" or \"exec:/path/to/driver?args=A,B\". Streams "
                + "and replays take &talker=HE,…&sentences=HDT,… to read one instrument of a multiplexed feed; the same "
                + "feed at several places is read once. Under the shipped unit a serial source needs the "
                + "serial-input.conf drop-in, a gateway on the LAN the lan-feed.conf one (systemd/drop-ins/). NMEA "
                + "2000: \"socketcan://can0\" (a PiCAN-M or Waveshare HAT, a CANable; listen-only; needs the "
                + "nmea2000-socketcan.conf drop-in), \"serial:///dev/ttyUSB0?baud=115200&format=actisense\" (an Actisense "
                + "NGT-1; the nmea2000-ngt1.conf drop-in), \"tcp://HOST:1457?format=ydraw\" or \"udp://:1457?format=ydraw\" "
                + "(a Yacht Devices YDWG-02 in RAW mode), and replays of candump, YD RAW and canboat logs. Each device "
                + "on the bus is a source: &device=ADDRESS (0-253) or &device=NAME (its 64-bit NAME, 0x…; headingd's "
                + "log prints it); without device=, the first heard is taken. Several sources, best first, as an array: "
                + "headings come from the best healthy one (HEADINGD_SOURCE takes several separated by spaces). Each "
                + "may end in ?offset=DEGREES (added to the sensor's heading: a sensor turned 2° to starboard of the "
                + "bow is -2), &smoothing=SECONDS (time constant), &deviation=HEADING:DEVIATION,... (the compass's "
                + "deviation card). Installed, headingd reads the gpsd on this machine. To find what is on board and "
                + "write the sources for it, ranked: headingd scan "
                + "--write-config /etc/headingd/conf.d/10-scan.toml (stop headingd first: the scan needs the ports to "
                + "itself).",
            examples: [
                #"["gpsd://127.0.0.1:2947/dev/ttyUSB0", "gpsd://127.0.0.1:2947/dev/ttyUSB1?offset=-1.5&deviation=0:2,90:-2,180:0,270:4"]"#,
                #"["tcp://192.168.1.10:10110?talker=HE", "tcp://192.168.1.10:10110?talker=HC", "tcp://192.168.1.10:10110?sentences=RMC"]"#,
                #"["socketcan://can0?device=0xC050A000E7E02C74", "socketcan://can0?device=0xC050A003113125EF"]"#,
            ],
            installed: #""gpsd""#,
            optionRepeats: true
        ) { content in
            guard case .stringArray(let texts) = content, !texts.isEmpty else { return "must name at least one source" }
            for text in texts {
                if case .failure(let error) = SourceSpecification.parse(text) { return error.reason }
            }
            return nil
        },
        SettingKey(
            name: "format", option: "--format", kind: .string, group: .output,
            field: .parsed(\.format, OutputFormat.init(rawValue:), \.rawValue), valueName: "text|json",
            help: "Output format: 'text' (one readable line) or 'json' (one JSON object per line).",
            file: "Output: \"text\" (one readable line per heading) or \"json\" (one JSON object per line). Installed, "
                + "headingd writes JSON lines for the journal.",
            installed: #""json""#) { content in
            guard case .string(let text) = content, OutputFormat(rawValue: text) != nil else { return "must be 'text' or 'json'" }
            return nil
        },
        SettingKey(
            name: "min_course_speed", option: "--min-course-speed", kind: .double, group: .sources,
            field: .number(\.minimumCourseSpeed), valueName: "m/s",
            help: "Replay and gpsd: the speed in m/s below which course over ground gives no heading (it is noise when "
                + "stationary).",
            file: "Course over ground gives a heading only at this speed or faster, in m/s (about 1 knot).") { number($0, in: 0...1000, "between 0 and 1000 m/s") },
        SettingKey(
            name: "require_checksum", option: "--require-checksum", kind: .bool, group: .sources,
            field: .flag(\.requiresChecksum),
            help: "Replay and gpsd: refuse NMEA sentences without a checksum (by default a complete sentence without "
                + "one is accepted).",
            file: "Refuse NMEA sentences that carry no checksum (replay and gpsd). By default a sentence without one is "
                + "accepted when it has every field its type defines; a line cut short never is."),
        SettingKey(
            name: "stale_after", option: "--stale-after", kind: .double, group: .processing,
            field: .number(\.staleAfter), valueName: "seconds",
            help: "Seconds without a heading before a source is stale (a stale fault; failover when it is the active "
                + "one).",
            file: "Seconds without a heading before a source is stale: a stale fault, and a failover when it is the one "
                + "delivering.") { number($0, in: 0.01...3600, "between 0.01 and 3600 seconds") },
        SettingKey(
            name: "fail_back_hold", option: "--fail-back-hold", kind: .double, group: .processing,
            field: .number(\.failBackHold), valueName: "seconds",
            help: "Seconds a better source must deliver again before headings fail back to it.") { number($0, in: 0...3600, "between 0 and 3600 seconds") },
        SettingKey(
            name: "disagreement.threshold", option: "--disagreement", kind: .double, group: .processing,
            field: .number(\.disagreementThreshold), valueName: "degrees",
            help: "Degrees two healthy sources may disagree by, for --disagreement-hold seconds, before a disagreement "
                + "fault; 0 for never.",
            file: "Degrees two healthy sources may disagree by, for longer than hold seconds, before a disagreement "
                + "fault naming both; 0 for never.") { number($0, in: 0...180, "between 0 (never) and 180 degrees") },
        SettingKey(
            name: "disagreement.hold", option: "--disagreement-hold", kind: .double, group: .processing,
            field: .number(\.disagreementHold), valueName: "seconds",
            help: "Seconds a disagreement must last before the fault.",
            file: "") { number($0, in: 0...3600, "between 0 and 3600 seconds") },
        SettingKey(
            name: "position", option: "--position", kind: .string, group: .processing,
            field: .optionalParsed(\.position, none: "none (the sources' fixes only)", parsePosition, \.description), valueName: "lat,lon",
            help: "The vessel's position when no source reports one, for the World Magnetic Model's variation: "
                + "LATITUDE,LONGITUDE[,ALTITUDE] (degrees North and East, metres).",
            file: "Where the vessel is when no source reports a position (\"LATITUDE,LONGITUDE[,ALTITUDE]\", degrees "
                + "North and East, metres above the ellipsoid): for the World Magnetic Model's variation when a device "
                + "gives only magnetic (or only true) heading and sends no variation.",
            examples: [#""54.32,10.14""#]) { content in
            guard case .string(let text) = content, parsePosition(text) != nil else {
                return "must be LATITUDE,LONGITUDE[,ALTITUDE], such as 54.32,10.14 (degrees North within ±90 and East within ±180, metres above the ellipsoid from -1000 to 100000)"
            }
            return nil
        },
        SettingKey(
            name: "filter", option: "--filter", kind: .double, group: .processing,
            field: .number(\.filter), valueName: "degrees",
            help: "Deliver a heading only when it differs from the last delivered one by at least this many degrees, "
                + "measured on the circle (0 delivers all).",
            file: "Deliver a heading only when it differs from the last delivered one by at least this many degrees, "
                + "measured on the circle (0 delivers every heading).") { number($0, in: 0...180, "between 0 and 180 degrees") },
        SettingKey(
            name: "replay.speed", option: "--speed", kind: .string, group: .replay,
            field: .parsed(\.replaySpeed, ReplaySpeedSetting.init(argument:)) { $0.speed == .flatOut ? "max" : $0.multiplierDescription },
            valueName: "n|max",
            help: "Replay: a multiple of the recorded speed (10 is ten times faster), or 'max' for flat out.",
            file: "A multiple of the recorded speed from 0.001 to 1000000 (\"10\" is ten times faster), or \"max\" for flat "
                + "out.") { content in
            guard case .string(let text) = content, ReplaySpeedSetting(argument: text) != nil else {
                return "must be a multiple from 0.001 to 1000000 (\"10\") or \"max\""
            }
            return nil
        },
        SettingKey(
            name: "replay.loop", option: "--loop", kind: .bool, group: .replay,
            field: .flag(\.replayLoops),
            help: "Replay: start the recording again at its end, until stopped.",
            file: "Start the recording again at its end."),
        SettingKey(
            name: "replay.strict", option: "--strict", kind: .bool, group: .replay,
            field: .flag(\.replayStrict),
            help: "Replay: exit 65 (EX_DATAERR) after the replay if any line was malformed or out of range.",
            file: "Exit 65 after the replay if any line was malformed or out of range."),
        SettingKey(
            name: "simulation.rate", option: "--rate", kind: .double, group: .simulation,
            field: .number(\.rate), valueName: "hz",
            help: "Simulation: headings per second. Replay: headings per second for a recording that carries no times.",
            file: "Headings per second (also the pace of a replay whose recording carries no times).") { number($0, in: 0.001...100_000, "above 0 and at most 100000 Hz") },
        SettingKey(
            name: "simulation.seed", option: "--seed", kind: .integer, group: .simulation,
            field: .unsigned(\.seed), valueName: "n",
            help: "Simulation: seed; the same seed gives the same headings.",
            file: "The same seed gives the same headings.") { content in
            guard case .int(let seed) = content, seed >= 0 else { return "must be 0 or more" }
            return nil
        },
        SettingKey(
            name: "simulation.dropout_interval", option: "--dropout-interval", kind: .double, group: .simulation,
            field: .number(\.dropoutInterval), valueName: "seconds",
            help: "Simulation: seconds from one sensor dropout to the next; 0 for none.",
            file: "Seconds from one simulated sensor dropout to the next (0 for none), and how long each lasts.") { number($0, in: 0...86_400, "between 0 and 86400 s") },
        SettingKey(
            name: "simulation.dropout_duration", option: "--dropout-duration", kind: .double, group: .simulation,
            field: .number(\.dropoutDuration), valueName: "seconds",
            help: "Simulation: how long each dropout lasts, in seconds.",
            file: "") { number($0, in: 0.001...86_400, "above 0 s") },
        SettingKey(
            name: "verbose", option: "--verbose", kind: .bool, group: .output,
            field: .flag(\.verbose),
            help: "Log headingd's own lifecycle at debug level on standard error.",
            file: "Log headingd's own lifecycle at debug level."),
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
        SettingKey(
            name: "outputs.signalk.enabled", option: "--signalk", kind: .bool, group: .output,
            field: .flag(\.signalKEnabled),
            help: "Serve headings as a Signal K source: discovery, the REST model and the WebSocket delta stream, on "
                + "--signalk-listen.",
            file: "Serve headings as a Signal K source (HTTP and WebSocket): discovery at /signalk, the full model at "
                + "/signalk/v1/api/, the delta stream at /signalk/v1/stream. navigation.headingTrue, headingMagnetic, "
                + "magneticVariation, magneticDeviation, attitude and rateOfTurn in radians; each fault as "
                + "notifications.navigation.heading.<code> (alarm, warn or alert; normal again on recovery)."),
        SettingKey(
            name: "outputs.signalk.listen", option: "--signalk-listen", kind: .string, group: .output,
            field: .parsed(\.signalKListen, ListenAddress.init, \.description), valueName: "host:port",
            help: "The Signal K output's address.",
            file: "Loopback by default, on a port clear of a Signal K server (3000) and gpsd (2947). A LAN address "
                + "serves the network; under the unit it must also be allowed (systemd/drop-ins/lan-output.conf).", defaultNote: "; a non-loopback address serves the network") { listenAddress($0, port: 8375) },
        SettingKey(
            name: "outputs.signalk.self", option: "--signalk-self", kind: .string, group: .output,
            field: .optionalText(\.signalKSelf), valueName: "urn",
            help: "The vessel's Signal K identity, urn:mrn:signalk:uuid:UUID or urn:mrn:imo:mmsi:MMSI.",
            file: "The vessel: urn:mrn:signalk:uuid:<version 4 UUID> or urn:mrn:imo:mmsi:<MMSI>. \"\" keeps one generated "
                + "once in the state directory (/var/lib/headingd/signalk-self under the unit).", defaultShown: "one generated once and kept in $STATE_DIRECTORY, else generated for the run") { content in
            guard case .string(let text) = content, text.isEmpty || SignalKDeltaEncoder.isVesselURN(text) else {
                return "must be urn:mrn:signalk:uuid: and a version 4 UUID, or urn:mrn:imo:mmsi: and the MMSI's nine digits, or \"\" to generate one"
            }
            return nil
        },
        SettingKey(
            name: "outputs.signalk.max_clients", option: "--signalk-max-clients", kind: .integer, group: .output,
            field: .integer(\.signalKMaxClients), valueName: "n",
            help: "The most Signal K stream clients at once; the next is refused.",
            file: "The most stream clients at once (the next is closed with 1013, try again later) and the most "
                + "subscriptions one client may hold.") { integer($0, in: 1...1024) },
        SettingKey(
            name: "outputs.signalk.max_subscriptions", option: "--signalk-max-subscriptions", kind: .integer, group: .output,
            field: .integer(\.signalKMaxSubscriptions), valueName: "n",
            help: "The most subscriptions one Signal K client may hold.",
            file: "") { integer($0, in: 1...1024) },
        SettingKey(
            name: "metrics.enabled", option: "--metrics", kind: .bool, group: .output,
            field: .flag(\.metricsEnabled),
            help: "Serve Prometheus metrics at /metrics: on the Signal K output's listener when --signalk is on, else "
                + "on --http-listen.",
            file: "Serve Prometheus metrics at /metrics (text format 0.0.4): each source's health, headings and faults, "
                + "the source steering, reloads, the heading itself (for display only). On the Signal K output's "
                + "listener when it runs, else on [http] listen; loopback by default."),
        SettingKey(
            name: "status.enabled", option: "--status", kind: .bool, group: .output,
            field: .flag(\.statusEnabled),
            help: "Serve the status page at /, /status.json and /status/events (what `headingd status` reads): on the "
                + "Signal K output's listener when --signalk is on, else on --http-listen.",
            file: "Serve the status page at / (the heading on a compass rose, each source, the active faults, the "
                + "outputs; live), /status.json and /status/events: on the Signal K output's listener when it runs, "
                + "else on [http] listen. `headingd status` asks it. Installed, on.",
            installed: "true"),
        SettingKey(
            name: "history.enabled", option: "--history", kind: .bool, group: .output,
            field: .flag(\.historyEnabled),
            help: "Keep the heading's history (once a second) and its faults, served by the Signal K output's History "
                + "API at /signalk/v2/api/history/.",
            file: "Keep the heading (once a second of the headings' own time) and every fault, recovery and change of "
                + "source, for days before the newest sample, in SQLite; the Signal K output serves it read-only in the "
                + "shape of Signal K's History API "
                + "(/signalk/v2/api/history/values?paths=navigation.headingTrue&duration=PT1H)."),
        SettingKey(
            name: "history.days", option: "--history-days", kind: .double, group: .output,
            field: .number(\.historyDays), valueName: "days",
            help: "Days of history kept.",
            file: "") { number($0, in: 0.01...366, "between 0.01 and 366 days") },
        SettingKey(
            name: "history.file", option: "--history-file", kind: .string, group: .output,
            field: .optionalText(\.historyFile), valueName: "path",
            help: "The history's file.",
            file: "The file; \"\" for $STATE_DIRECTORY/history.sqlite (/var/lib/headingd under the unit).", defaultShown: "$STATE_DIRECTORY/history.sqlite, else in memory", check: absolutePathOrNone),
        SettingKey(
            name: "http.listen", option: "--http-listen", kind: .string, group: .output,
            field: .parsed(\.httpListen, ListenAddress.init, \.description), valueName: "host:port",
            help: "Where the metrics and the status page are served when the Signal K output is off.",
            file: "headingd's own HTTP listener, for the metrics and the status page when the Signal K output is off: "
                + "loopback by default (a LAN address serves the network; the unit must allow it, README).", defaultNote: "; a non-loopback address serves the network") { listenAddress($0, port: 9947) },
        SettingKey(
            name: "http.request_head_timeout", option: "--http-request-head-timeout", kind: .double, group: .output,
            field: .number(\.httpLimits.requestHeadTimeout), valueName: "seconds",
            help: "HTTP: seconds a connection has to send a whole request head (a slow client is closed).",
            file: "How the HTTP listener (Signal K's, and every HTTP service after it) defends itself. A connection has "
                + "request_head_timeout seconds, from its opening or its first byte after a response, to send a whole "
                + "request head (a client trickling its headers is closed); one that waits idle_timeout seconds between "
                + "requests is closed; at max_connections a new connection closes the oldest one that is idle or still "
                + "sending its head (never one being served, nor a stream); a request that sends more than "
                + "max_request_size bytes before its response is closed.") {
            number($0, in: 0.1...300, "between 0.1 and 300 seconds")
        },
        SettingKey(
            name: "http.idle_timeout", option: "--http-idle-timeout", kind: .double, group: .output,
            field: .number(\.httpLimits.idleTimeout), valueName: "seconds",
            help: "HTTP: seconds a connection may wait between requests before it is closed.",
            file: "") { number($0, in: 0.1...3600, "between 0.1 and 3600 seconds") },
        SettingKey(
            name: "http.max_connections", option: "--http-max-connections", kind: .integer, group: .output,
            field: .integer(\.httpLimits.maximumConnections), valueName: "n",
            help: "HTTP: the most open connections; at the limit a new one closes the oldest that is idle or still "
                + "sending its head.",
            file: "") { integer($0, in: 1...65_536) },
        SettingKey(
            name: "http.max_request_size", option: "--http-max-request-size", kind: .integer, group: .output,
            field: .integer(\.httpLimits.maximumRequestSize), valueName: "bytes",
            help: "HTTP: the largest request, head and body, in bytes; a larger one is answered 413 and closed.",
            file: "") { integer($0, in: 1024...16_777_216, "bytes") },
        SettingKey(
            name: "outputs.mqtt.broker", option: "--mqtt", kind: .string, group: .mqtt,
            field: .optionalParsed(\.mqtt.broker, MQTTSettings.Broker.init, \.description), valueName: "url",
            help: "Publish headings, faults and status to this MQTT broker: mqtt://HOST[:PORT] (1883) or "
                + "mqtts://HOST[:PORT] (8883, TLS).",
            file: "Publish status, headings and faults to the fleet's MQTT broker: \"mqtt://HOST[:PORT]\" (1883) or "
                + "\"mqtts://HOST[:PORT]\" (8883, TLS: ca_file needed), or \"\" for none. Under the unit a broker off this "
                + "machine needs the mqtt-broker.conf drop-in (systemd/drop-ins/), which also passes the password as a "
                + "credential.") { content in
            guard case .string(let text) = content, text.isEmpty || MQTTSettings.Broker(text) != nil else {
                return "must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS), or \"\" for none"
            }
            return nil
        },
        SettingKey(
            name: "outputs.mqtt.prefix", option: "--mqtt-prefix", kind: .string, group: .mqtt,
            field: .optionalText(\.mqtt.prefix), valueName: "topic",
            help: "MQTT: the topics' prefix.",
            file: "The topics' prefix; \"\" for vessels/<the Signal K self>.", defaultShown: "vessels/<the Signal K self>") { content in
            guard case .string(let text) = content,
                text.isEmpty || (!text.contains("+") && !text.contains("#") && !text.hasPrefix("/") && !text.hasSuffix("/") && text.utf8.count <= 1024)
            else { return "must be a topic without wildcards (+, #) and without a leading or trailing /" }
            return nil
        },
        SettingKey(
            name: "outputs.mqtt.client_id", option: "--mqtt-client-id", kind: .string, group: .mqtt,
            field: .optionalText(\.mqtt.clientID), valueName: "id",
            help: "MQTT: the client identifier.",
            file: "The client identifier; \"\" for the Signal K self.", defaultShown: "the Signal K self") { content in
            guard case .string(let text) = content, text.utf8.count <= 256, !text.contains("\u{0}") else { return "must be at most 256 bytes" }
            return nil
        },
        SettingKey(
            name: "outputs.mqtt.username", option: "--mqtt-username", kind: .string, group: .mqtt,
            field: .optionalText(\.mqtt.username), valueName: "name",
            help: "MQTT: the user name.",
            file: "") { content in
            guard case .string(let text) = content, text.utf8.count <= 1024 else { return "must be at most 1024 bytes" }
            return nil
        },
        SettingKey(
            name: "outputs.mqtt.password_file", option: "--mqtt-password-file", kind: .string, group: .mqtt,
            field: .optionalText(\.mqtt.passwordFile), valueName: "path",
            help: "MQTT: the file holding the password",
            file: "The file holding the password; \"\" for the unit's credential ($CREDENTIALS_DIRECTORY/mqtt-password).", defaultShown: "$CREDENTIALS_DIRECTORY/mqtt-password when systemd passes it, else none", check: absolutePathOrNone),
        SettingKey(
            name: "outputs.mqtt.ca_file", option: "--mqtt-ca-file", kind: .string, group: .mqtt,
            field: .optionalText(\.mqtt.caFile), valueName: "path",
            help: "MQTT over TLS: the CA certificates that sign the broker's.",
            file: "TLS: the CA that signs the broker's certificate; a client certificate and key if it asks for one.", check: absolutePathOrNone),
        SettingKey(
            name: "outputs.mqtt.cert_file", option: "--mqtt-cert-file", kind: .string, group: .mqtt,
            field: .optionalText(\.mqtt.certificateFile), valueName: "path",
            help: "MQTT over TLS: the client's certificate, when the broker asks for one.",
            file: "", check: absolutePathOrNone),
        SettingKey(
            name: "outputs.mqtt.key_file", option: "--mqtt-key-file", kind: .string, group: .mqtt,
            field: .optionalText(\.mqtt.keyFile), valueName: "path",
            help: "MQTT over TLS: the client certificate's key.",
            file: "", check: absolutePathOrNone),
        SettingKey(
            name: "outputs.mqtt.rate", option: "--mqtt-rate", kind: .double, group: .mqtt,
            field: .number(\.mqtt.rate), valueName: "hz",
            help: "MQTT: the most heading messages a second per topic, the newest winning.",
            file: "The most heading messages a second per topic, the newest winning.") { number($0, in: 0.01...50, "between 0.01 and 50 a second") },
        SettingKey(
            name: "outputs.mqtt.keepalive", option: "--mqtt-keepalive", kind: .integer, group: .mqtt,
            field: .integer(\.mqtt.keepalive), valueName: "seconds",
            help: "MQTT: the keepalive in seconds; a headingd that vanishes shows offline about 1.5 times this later.",
            file: "Seconds: the broker says offline about 1.5 times this after headingd vanished.") { integer($0, in: 5...3600, "seconds") },
        SettingKey(
            name: "outputs.mqtt.journal", option: "--mqtt-journal", kind: .string, group: .mqtt,
            field: .optionalText(\.mqtt.journal), valueName: "path",
            help: "MQTT: the journal's file, where fault changes wait for the broker.",
            file: "Where fault changes wait for the broker's acknowledgement; \"\" for "
                + "$STATE_DIRECTORY/mqtt-journal.sqlite.", defaultShown: "$STATE_DIRECTORY/mqtt-journal.sqlite, else in memory", check: absolutePathOrNone),
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

    /// An absolute path, or "" for none.
    private static func absolutePathOrNone(_ content: ConfigContent) -> String? {
        guard case .string(let text) = content, text.isEmpty || text.hasPrefix("/") else { return "must be an absolute path, or \"\"" }
        return nil
    }

    /// A listener's `HOST:PORT`; `port` is the example's.
    private static func listenAddress(_ content: ConfigContent, port: Int) -> String? {
        guard case .string(let text) = content, ListenAddress(text) != nil else { return "must be HOST:PORT, such as 127.0.0.1:\(port) or [::1]:\(port)" }
        return nil
    }

    /// An integer within `range`, said with its `unit`.
    static func integer(_ content: ConfigContent, in range: ClosedRange<Int>, _ unit: String = "") -> String? {
        guard case .int(let value) = content, range.contains(value) else {
            return "must be from \(range.lowerBound) to \(range.upperBound)" + (unit.isEmpty ? "" : " " + unit)
        }
        return nil
    }

    /// A finite number within `range`; `phrase` says the range.
    static func number(_ content: ConfigContent, in range: ClosedRange<Double>, _ phrase: String) -> String? {
        guard case .double(let value) = content, value.isFinite, range.contains(value) else { return "must be \(phrase)" }
        return nil
    }
}
