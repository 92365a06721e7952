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

    /// The identity kept in `directory`, made and written there when there is none; a new one for
    /// this run alone when there is no directory or it cannot be written. A file that holds no
    /// valid URN (damaged) is moved aside (``DamagedFile``), never silently overwritten.
    /// - Returns: The URN, a sentence for the log when it was generated, and one for an error
    ///   when the file was damaged.
    static func kept(in directory: StateDirectory) -> (urn: String, note: String?, damage: String?) {
        guard let file = directory.file(fileName) else {
            let urn = generated()
            return (urn, "Signal K: no state directory ($STATE_DIRECTORY); this run's vessel is \(urn) (set outputs.signalk.self to keep one)", nil)
        }
        let path = URL(fileURLWithPath: file)
        var damage: String?
        if let handle = FileHandle(forReadingAtPath: path.path) {
            let text = String(decoding: (try? handle.read(upToCount: 256)) ?? Data(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            try? handle.close()
            if SignalKDeltaEncoder.isVesselURN(text) { return (text, nil, nil) }
            damage = DamagedFile.setAside(path.path, found: "Signal K: \(path.path) holds no vessel URN (damaged?)", then: "a new identity is made")
        }
        let urn = generated()
        do {
            try Data((urn + "\n").utf8).write(to: path, options: .atomic)
            return (urn, "Signal K: this vessel is \(urn), kept in \(path.path)", damage)
        } catch {
            return (urn, "Signal K: cannot keep the vessel's identity in \(path.path) (\(error.localizedDescription)); this run's is \(urn)", damage)
        }
    }
}
