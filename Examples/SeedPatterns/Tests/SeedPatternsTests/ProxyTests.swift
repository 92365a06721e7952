// headingd — examples: testing code that sits behind a heading source, with HeadingKitTesting.
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitTesting
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// A consumer's own test: a `ScriptedHeadingSource` sends exactly what the test says, and a
/// `Recorder` keeps what the proxy delivered. No clock, no sleeps.
struct ProxyTests {
    @Test func theProxyDeliversWhatTheSourceSendsWhileEnabled() {
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let recorder = DelegateRecorder()
        let subscription = proxy.publisher.sink { @Sendable in recorder.record($0) }
        defer { subscription.cancel() }
        proxy.enable()
        source.send(trueHeading: 90)
        source.send(.fault(HeadingFault(code: .deviceLost, source: "scripted", reason: "cable pulled")))
        source.send(trueHeading: 91)
        proxy.disable()
        source.send(trueHeading: 92)  // after disable(): not delivered
        #expect(recorder.headings.map(\.trueHeading) == [90, 91])
        #expect(recorder.faults.map(\.code) == [.deviceLost])
    }

    @Test func aPrivateCenterPerTestKeepsParallelTestsApart() async {
        let center = NotificationCenter()
        let source = ScriptedHeadingSource()
        let proxy = HeadingProxy(source: source, delivery: .immediate)
        let bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        defer { bridge.cancel() }
        let headings = center.headings(from: proxy)
        proxy.enable()
        source.send(trueHeading: 10)
        var iterator = headings.makeAsyncIterator()
        #expect(await iterator.next()?.trueHeading == 10)
    }
}
