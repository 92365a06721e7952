// headingd — examples: subscribe once, then toggle enable()/disable() from a switch, three times.
// SPDX-License-Identifier: Apache-2.0
//
// disable() pauses; it finishes nothing. The one subscription made at the start receives the
// headings of every enabled period, as with Core Location's start/stop.

import Foundation
import HeadingKit

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

let proxy = HeadingProxy(source: SimulatedHeadingSource(configuration: .init(rate: 50)))
var perPeriod: [Int] = []
var completions = 0
var waiting: AsyncStream<Void>.Continuation?

let subscription = proxy.headingPublisher.sink(
    receiveCompletion: { _ in completions += 1 },
    receiveValue: { _ in
        perPeriod[perPeriod.count - 1] += 1
        if perPeriod[perPeriod.count - 1] == 3 { waiting?.finish() }
    }
)
for _ in 1...3 {
    let (period, continuation) = AsyncStream.makeStream(of: Void.self)
    waiting = continuation
    perPeriod.append(0)
    proxy.enable()  // the switch turned on
    for await _ in period {}
    proxy.disable()  // and off
}
subscription.cancel()
guard perPeriod.allSatisfy({ $0 >= 3 }), completions == 0 else {
    fatalError("ToggleSubscribeOnce: headings per period \(perPeriod), completions \(completions)")
}
print("ToggleSubscribeOnce: headings per enabled period \(perPeriod), one subscription, never completed")
