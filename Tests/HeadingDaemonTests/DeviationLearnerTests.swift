// headingd tests
// SPDX-License-Identifier: Apache-2.0

import Clocks
import Foundation
@testable import HeadingDaemon
import HeadingKit
import HeadingKitTesting
import Logging
import Testing

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

struct DeviationLearnerTests {
    @Test func aCompassInAMagneticDisturbanceIsNotLearnedFromUntilItSaysItsAccuracyAgain() {
        let compass = ScriptedHeadingSource(name: "iio")
        let proxy = HeadingProxy(source: compass, delivery: .immediate)
        let processor = HeadingProcessor(inputs: [(proxy, .init())], delivery: .immediate, clock: TestClock())
        let learner = DeviationLearner(
            source: "iio", index: 0, processor: processor, position: nil, stateDirectory: StateDirectory(path: nil), logger: Logger(label: "test"))
        let subscriptions = learner.attach()
        defer { for subscription in subscriptions { subscription.cancel() } }
        proxy.enable()
        func send(_ heading: Double, accuracy: Double, at second: Double) {
            compass.send(.heading(Heading(
                trueHeading: nil, magneticHeading: heading, headingAccuracy: accuracy, timestamp: Date(timeIntervalSince1970: 1_800_000_000 + second),
                source: "iio", kind: .compass)))
        }
        send(10, accuracy: 1, at: 0)
        send(11, accuracy: 1, at: 1)
        #expect(learner.compassHeadings == 2)
        compass.send(.fault(HeadingFault(code: .magneticDisturbance, source: "iio", reason: "a magnet", timestamp: Date())))
        send(12, accuracy: 2, at: 2)  // carried by the gyro
        send(13, accuracy: 3.5, at: 3)
        send(14, accuracy: 90, at: 4)  // the magnetometer's own, in a disturbance
        #expect(learner.compassHeadings == 2, "a disturbed heading was learned from")
        send(15, accuracy: 1, at: 5)  // the field is back
        send(16, accuracy: 1, at: 6)
        #expect(learner.compassHeadings == 4)
    }
}
