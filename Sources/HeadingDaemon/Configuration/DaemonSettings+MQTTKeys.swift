// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration

extension DaemonSettings {
    /// The MQTT output's keys (`[outputs.mqtt]`).
    static let mqttKeys: [SettingKey] = [
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
    ]
}
