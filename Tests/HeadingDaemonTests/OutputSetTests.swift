// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitTesting
import Logging
import Testing

@testable import HeadingDaemon

/// The outputs' set, as the pipeline runner applies it before the sources start.
struct OutputSetTests {
    /// An event the sources deliver at once (a device that cannot be opened) reaches every output:
    /// each is subscribed to the fan-out when `apply` returns, not when its task first runs.
    @Test func everyOutputHearsTheFanOutOnceApplyReturnsAndNoLongerOnceStopped() async throws {
        let fanOut = HeadingFanOut()
        let outputs = OutputSet(metrics: HeadingMetrics(version: "test"), status: StatusBoard(version: "test"), fanOut: fanOut, logger: Logger(label: "test"))
        var settings = DaemonSettings()
        settings.nmeaTCPListen = ListenAddress("127.0.0.1:\(GPSFake.freePort())")
        settings.nmeaUDPTargets = [try #require(ListenAddress("127.0.0.1:\(GPSFake.freePort())"))]
        settings.nmeaSerialDevice = "/nonexistent/ttyUSB9"
        settings.signalKEnabled = true
        settings.signalKListen = try #require(ListenAddress("127.0.0.1:\(GPSFake.freePort())"))
        try await outputs.apply(settings, signalKSelf: { "urn:mrn:signalk:uuid:00000000-0000-4000-8000-000000000000" }, isReload: false)
        // No await between: the outputs' tasks may not have had a thread yet.
        let subscribed = fanOut.consumerCount
        #expect(outputs.count == 4)
        #expect(subscribed == 4, "\(subscribed) of 4 outputs subscribed when apply returned")
        await outputs.stopAll()
        #expect(fanOut.consumerCount == 0)
    }
}
