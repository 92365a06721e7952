// headingd — examples: a `sink` in top-level code, as a Combine script writes it.
// SPDX-License-Identifier: Apache-2.0
//
// Top-level code is main-actor code: the sink's closure mutates `received`, a main-actor
// variable, with no `@Sendable` and no hop. It runs safely because a proxy created on the main
// thread delivers on the main queue (HeadingDelivery.automatic, Core Location's rule).

import Foundation
import HeadingKit

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

let proxy = HeadingProxy(source: SimulatedHeadingSource(configuration: .init(rate: 50)))
var received: [Double] = []
let (done, finish) = AsyncStream.makeStream(of: Void.self)

let subscription = proxy.headingPublisher.sink { heading in
    received.append(heading.trueHeading ?? .nan)  // main-actor state, touched from the sink
    if received.count == 5 { finish.finish() }
}
proxy.enable()
for await _ in done {}  // awaiting lets the main queue deliver
proxy.disable()
subscription.cancel()
print("TopLevelSink: \(received.count) headings on the main thread, first \(received[0])")
