// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitGPSD
import HeadingKitTesting
import Testing

@testable import HeadingDaemon

/// The gpsd connection's progress, as `ConnectionStatusLog` passes it on.
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct ConnectionStatusLogTests {
    /// Found by CI: the service group started the log after the source had already tried once
    /// (a refused connection goes from `connecting` to `retrying` in microseconds), and the log,
    /// which subscribed only when it ran, never told of `connecting`.
    @Test func theFirstAttemptIsToldEvenWhenTheLogRunsAfterIt() async throws {
        let listener = try DatagramListener()
        let notifier = SystemdNotifier(
            socket: NotifySocket(path: listener.address), center: NotificationCenter(), sourceName: "gpsd", watchdogInterval: nil
        )
        let notifying = Task { await notifier.run() }
        defer { notifying.cancel() }
        #expect(await listener.messages.wait { $0.contains("READY=1") })

        let endpoint = GPSDEndpoint(host: "127.0.0.1", port: GPSFake.freePort())  // nothing listens there
        let source = GPSDHeadingSource(configuration: .init(endpoint: endpoint, sourceName: "gpsd"))
        let log = ConnectionStatusLog(source: source, notifier: notifier)
        source.start()
        defer { source.stop() }
        for await state in source.connectionStates() {
            if case .waitingToRetry = state { break }
        }
        // Only now does the log run, as a late service would.
        let logging = Task { await log.run() }
        defer { logging.cancel() }
        #expect(await listener.messages.wait { $0.contains("STATUS=waiting for the first heading from gpsd (connecting)") })
    }
}
