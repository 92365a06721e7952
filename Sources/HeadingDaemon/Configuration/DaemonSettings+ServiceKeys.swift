// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import HeadingOutputs

extension DaemonSettings {
    /// The Signal K output's keys, the metrics, the status page, the history and the HTTP listener.
    static let serviceKeys: [SettingKey] = [
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
    ]
}
