// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingOutputs

/// The vessel's Signal K identity when the configuration names none: generated once and kept in
/// the service's state directory (`StateDirectory=headingd` in the unit gives
/// `$STATE_DIRECTORY`, `/var/lib/headingd`), so that Signal K clients and servers see the same
/// vessel across restarts.
enum SignalKIdentity {
    /// The file in the state directory.
    static let fileName = "signalk-self"

    /// A new identity: `urn:mrn:signalk:uuid:` and a random (version 4) UUID.
    static func generated() -> String { SignalKDeltaEncoder.selfURN(for: UUID()) }

    /// The identity kept in `directory`, made and written there when there is none (or it is not a
    /// valid URN); a new one for this run alone when there is no directory or it cannot be written.
    /// - Returns: The URN, and a sentence for the log when it was generated.
    static func kept(in directory: String?) -> (urn: String, note: String?) {
        guard let directory, !directory.isEmpty else {
            let urn = generated()
            return (urn, "Signal K: no state directory ($STATE_DIRECTORY); this run's vessel is \(urn) (set outputs.signalk.self to keep one)")
        }
        // A state directory may list several (colon-separated); the first is headingd's.
        let path = URL(fileURLWithPath: String(directory.split(separator: ":").first ?? ""), isDirectory: true).appendingPathComponent(fileName)
        if let handle = FileHandle(forReadingAtPath: path.path) {
            defer { try? handle.close() }
            let text = String(decoding: (try? handle.read(upToCount: 256)) ?? Data(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if SignalKDeltaEncoder.isVesselURN(text) { return (text, nil) }
        }
        let urn = generated()
        do {
            try Data((urn + "\n").utf8).write(to: path, options: .atomic)
            return (urn, "Signal K: this vessel is \(urn), kept in \(path.path)")
        } catch {
            return (urn, "Signal K: cannot keep the vessel's identity in \(path.path) (\(error.localizedDescription)); this run's is \(urn)")
        }
    }
}
