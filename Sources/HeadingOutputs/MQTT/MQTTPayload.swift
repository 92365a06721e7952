// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import HeadingKit

/// The topics and payloads headingd publishes to an MQTT broker, in Signal K's units and shapes,
/// so that a shore side reads them without reading headingd's code:
///
/// | topic (under the prefix) | payload | QoS, retained |
/// |---|---|---|
/// | `status` | `{"state":"online"|"offline","timestamp":…,"version":…}` | 1, retained; the will says `offline` |
/// | `navigation/headingTrue`, `headingMagnetic`, `magneticVariation`, `magneticDeviation`, `attitude`, `rateOfTurn` | `{"value":…,"timestamp":…,"$source":…}` (radians, radians a second) | 0, retained; empty when stale |
/// | `notifications/navigation/heading/<code>` | `{"id":…,"state":…,"method":[…],"message":…,"timestamp":…,"$source":…}` | 1, retained |
public enum MQTTPayload {
    /// The topic of a Signal K path under `prefix`: `vessels/x` and `navigation.headingTrue` give
    /// `vessels/x/navigation/headingTrue`.
    public static func topic(_ prefix: String, _ path: String) -> String {
        prefix + "/" + path.replacingOccurrences(of: ".", with: "/")
    }

    /// The status topic's payload.
    /// - Parameters:
    ///   - online: Whether headingd is connected and publishing.
    ///   - timestamp: When.
    ///   - version: headingd's version.
    public static func status(online: Bool, at timestamp: Date, version: String) -> [UInt8] {
        Array("{\"state\":\"\(online ? "online" : "offline")\",\"timestamp\":\(SignalKJSON.timestamp(timestamp)),\"version\":\(JSONText.quoted(version))}".utf8)
    }

    /// A value's payload: the value as Signal K writes it (JSON), when, and from which source.
    public static func value(_ json: String, at timestamp: Date, source: String) -> [UInt8] {
        Array("{\"value\":\(json),\"timestamp\":\(SignalKJSON.timestamp(timestamp)),\"$source\":\(JSONText.quoted(source))}".utf8)
    }

    /// A notification's payload, with the journal's `id` (the same on every retry: a subscriber
    /// that sees an id twice has seen one change).
    public static func notification(_ notification: SignalKNotification, id: Int64) -> [UInt8] {
        let method = notification.method.map { JSONText.quoted($0.rawValue) }.joined(separator: ",")
        return Array(
            ("{\"id\":\(id),\"state\":\"\(notification.state.rawValue)\",\"method\":[\(method)],\"message\":\(JSONText.quoted(notification.message)),"
                + "\"timestamp\":\(SignalKJSON.timestamp(notification.timestamp)),\"$source\":\(JSONText.quoted(SignalKDeltaEncoder.sourceReference(for: notification.source)))}")
                .utf8
        )
    }
}
