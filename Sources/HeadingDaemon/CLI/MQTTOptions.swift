// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration

/// The options of the MQTT output (`[outputs.mqtt]`). The password has none: it is read from a
/// file, never given on the command line.
struct MQTTOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Publish headings, faults and status to this MQTT broker: mqtt://HOST[:PORT] (1883) or mqtts://HOST[:PORT] (8883, TLS). (default: none)",
            valueName: "url"
        )
    )
    var mqtt: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("MQTT: the topics' prefix. (default: vessels/<the Signal K self>)", valueName: "topic"))
    var mqttPrefix: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("MQTT: the client identifier. (default: the Signal K self)", valueName: "id"))
    var mqttClientId: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("MQTT: the user name. (default: none)", valueName: "name"))
    var mqttUsername: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "MQTT: the file holding the password (default: $CREDENTIALS_DIRECTORY/mqtt-password when systemd passes it, else none).",
            valueName: "path"
        )
    )
    var mqttPasswordFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("MQTT over TLS: the CA certificates that sign the broker's. (default: none)", valueName: "path"))
    var mqttCaFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("MQTT over TLS: the client's certificate, when the broker asks for one.", valueName: "path"))
    var mqttCertFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("MQTT over TLS: the client certificate's key.", valueName: "path"))
    var mqttKeyFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("MQTT: the most heading messages a second per topic, the newest winning. (default: 1)", valueName: "hz"))
    var mqttRate: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("MQTT: the keepalive in seconds; a headingd that vanishes shows offline about 1.5 times this later. (default: 30)", valueName: "seconds")
    )
    var mqttKeepalive: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "MQTT: the journal's file, where fault changes wait for the broker. (default: $STATE_DIRECTORY/mqtt-journal.sqlite, else in memory)",
            valueName: "path"
        )
    )
    var mqttJournal: String?

    /// The options given, by configuration key.
    var settings: [String: ConfigContent] {
        optionSettings([
            "outputs.mqtt.broker": mqtt.map(ConfigContent.string),
            "outputs.mqtt.prefix": mqttPrefix.map(ConfigContent.string),
            "outputs.mqtt.client_id": mqttClientId.map(ConfigContent.string),
            "outputs.mqtt.username": mqttUsername.map(ConfigContent.string),
            "outputs.mqtt.password_file": mqttPasswordFile.map(ConfigContent.string),
            "outputs.mqtt.ca_file": mqttCaFile.map(ConfigContent.string),
            "outputs.mqtt.cert_file": mqttCertFile.map(ConfigContent.string),
            "outputs.mqtt.key_file": mqttKeyFile.map(ConfigContent.string),
            "outputs.mqtt.rate": mqttRate.map(ConfigContent.double),
            "outputs.mqtt.keepalive": mqttKeepalive.map(ConfigContent.int),
            "outputs.mqtt.journal": mqttJournal.map(ConfigContent.string),
        ])
    }
}
