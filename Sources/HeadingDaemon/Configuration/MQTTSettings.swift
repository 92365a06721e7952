// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingOutputs

/// The `[outputs.mqtt]` table: where the fleet's broker is, how to log in, what to publish under.
/// The password is never a setting: it is read from `password_file`, or from systemd's
/// credentials (`$CREDENTIALS_DIRECTORY/mqtt-password`, `LoadCredential=` in a drop-in).
struct MQTTSettings: Sendable, Equatable {
    /// The broker: `mqtt://HOST[:PORT]` (1883) or `mqtts://HOST[:PORT]` (8883, TLS); `nil` for none.
    var broker: Broker?
    /// The topics' prefix; `nil` for `vessels/<self>`.
    var prefix: String?
    /// The client identifier; `nil` for the vessel's Signal K identity.
    var clientID: String?
    var username: String?
    /// The file the password is read from; `nil` for the credential, if there is one.
    var passwordFile: String?
    var caFile: String?
    var certificateFile: String?
    var keyFile: String?
    /// The most heading messages a second, per topic (the newest wins).
    var rate = 1.0
    /// The keepalive in seconds: a headingd that vanishes shows `offline` about 1.5 times this later.
    var keepalive = 30
    /// The journal's file; `nil` for `$STATE_DIRECTORY/mqtt-journal.sqlite`, else one in memory.
    var journal: String?

    /// A broker's address.
    struct Broker: Sendable, Equatable, CustomStringConvertible {
        let host: String
        let port: Int
        let usesTLS: Bool

        /// Parses `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`; `nil` for anything else.
        init?(_ text: String) {
            guard let components = URLComponents(string: text), let scheme = components.scheme, scheme == "mqtt" || scheme == "mqtts",
                let host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/", components.query == nil,
                components.user == nil, components.password == nil
            else { return nil }
            let port = components.port ?? (scheme == "mqtts" ? 8883 : 1883)
            guard (1...65535).contains(port) else { return nil }
            self.host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            self.port = port
            usesTLS = scheme == "mqtts"
        }

        var description: String { "\(usesTLS ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    }

    init() {}
}
