// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import Foundation
import HeadingKit
import HeadingOutputs

extension DaemonSettings {
    /// Every key headingd reads, with its checks: in this order the shipped file and `--check-config`
    /// lay them out (and `--help` lists each group's).
    static let keys: [SettingKey] = inputKeys + nmea0183Keys + serviceKeys + mqttKeys + NMEA2000OutputSettings.keys

    /// Where headings come from, how they are chosen and corrected, the replay, the simulation and
    /// the standard output's format.
    static let inputKeys: [SettingKey] = [
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
    ]




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
    static func absolutePathOrNone(_ content: ConfigContent) -> String? {
        guard case .string(let text) = content, text.isEmpty || text.hasPrefix("/") else { return "must be an absolute path, or \"\"" }
        return nil
    }

    /// A listener's `HOST:PORT`; `port` is the example's.
    static func listenAddress(_ content: ConfigContent, port: Int) -> String? {
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
