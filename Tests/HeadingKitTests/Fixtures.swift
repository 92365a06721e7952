// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Paths of the recordings in `Tests/Fixtures` (see its README for their sources and licence).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A log from gpsd's regression suite, such as `hemi.log`.
    static func gpsdLog(_ name: String) -> String {
        directory.appendingPathComponent("gpsd-logs").appendingPathComponent(name).path
    }

    /// Another fixture file.
    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Every log copied from gpsd's regression suite.
    static let allGPSDLogs = [
        "ait250.log", "bu303-moving.log", "bundg_zeus_9.log", "haicom-305N.log", "hemi.log", "rst39.log",
        "saab-r4.log", "sirfstarv.log", "telit-he910.log", "tnt-revolution.log",
    ]
}
