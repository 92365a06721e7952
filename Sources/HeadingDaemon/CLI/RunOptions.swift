// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation

/// The options of one run that are no setting (a configuration file has no `count`).
struct RunOptions: ParsableArguments {
    /// Its section's title in `--help` and the man page: the settings' sections go before it.
    static let title = "Run"

    @Option(parsing: .unconditional, help: ArgumentHelp("Exit 0 after printing this many headings (default: run until stopped).", valueName: "n"))
    var count: Int?

    /// A `--count` below 1 is a value out of range: exit 78 (EX_CONFIG), as for every setting,
    /// not a usage error.
    func validate() throws {
        if let count, count < 1 {
            FileHandle.standardError.write(Data("headingd: configuration: option --count: must be at least 1, not \(count)\n".utf8))
            throw ExitCode(78)
        }
    }
}
