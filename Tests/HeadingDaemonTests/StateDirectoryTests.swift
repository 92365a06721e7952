// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

@testable import HeadingDaemon
import Testing

/// The one reading of `$STATE_DIRECTORY`: systemd's colon-separated list, none, and where
/// calibrations go without one.
@Suite struct StateDirectoryTests {
    @Test func theFirstOfSystemdsListIsHeadingdsAndFilesAreInIt() {
        let directory = StateDirectory(path: "/var/lib/headingd:/var/lib/other")
        #expect(directory.path == "/var/lib/headingd")
        #expect(directory.file("history.sqlite") == "/var/lib/headingd/history.sqlite")
        #expect(directory.calibrations == "/var/lib/headingd")
    }

    @Test(arguments: [nil, ""]) func noneKeepsNothingButCalibrationsHaveThePackagesDirectory(path: String?) {
        let directory = StateDirectory(path: path)
        #expect(directory.path == nil)
        #expect(directory.file("signalk-self") == nil)
        #expect(directory.calibrations == StateDirectory.packageDefault)
    }
}
