// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Where headingd keeps what outlives a run: the NMEA 2000 node's NAME and address, the Signal K
/// identity, the history, the MQTT journal, the learned deviation cards and the calibrations.
///
/// systemd names it in `$STATE_DIRECTORY` (`StateDirectory=headingd` in the unit gives
/// `/var/lib/headingd`); a unit that lists several directories gets them colon-separated, and the
/// first is headingd's. The environment is read here and nowhere else: the daemon and its commands
/// take ``process``, a test makes its own with ``init(path:)``.
struct StateDirectory: Sendable, Equatable {
    /// The package's state directory: where calibrations are looked for (and `headingd calibrate`
    /// writes them) when systemd names none.
    static let packageDefault = "/var/lib/headingd"

    /// This process's, from its environment.
    static let process = StateDirectory(path: ProcessInfo.processInfo.environment["STATE_DIRECTORY"])

    /// The directory systemd named; `nil` outside systemd, and then nothing but calibrations is
    /// kept between runs.
    let path: String?

    /// A state directory.
    /// - Parameter path: As systemd gives it (the first of a colon-separated list is taken); `nil`
    ///   or empty for none.
    init(path: String?) {
        self.path = path?.split(separator: ":").first.map(String.init)
    }

    /// A file's path in the directory; `nil` when there is none.
    func file(_ name: String) -> String? {
        path.map { URL(fileURLWithPath: $0, isDirectory: true).appendingPathComponent(name).path }
    }

    /// Where calibrations are kept: the directory, else ``packageDefault`` (the IIO source,
    /// `headingd calibrate` and `headingd scan` look in the same place).
    var calibrations: String { path ?? Self.packageDefault }
}
