// headingd — examples: the model-layer center, NotificationCenter.heading, read three ways —
// a publisher, a block observer, and `for await` — for headings and for faults.
// SPDX-License-Identifier: Apache-2.0
//
// The simulation drops out briefly (a fault), then recovers. `publisher(for:)` and
// `notifications(named:)` are Apple Foundation's spellings; HeadingKit adds them on Linux.

import Foundation
import HeadingKit
import Synchronization

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

let center = NotificationCenter.heading
let simulation = HeadingSimulation.Configuration(rate: 50, dropoutInterval: 0.3, dropoutDuration: 0.1)
let proxy = HeadingProxy(source: SimulatedHeadingSource(configuration: simulation))
let bridge = HeadingNotificationBridge(proxy: proxy, center: center)

var published = 0
let headings = center.headingPublisher(from: proxy).sink { _ in published += 1 }
let faultsByName = center.publisher(for: .headingDidFail, object: proxy).compactMap(\.headingFault).sink { fault in
    print("CenterObservers: fault via publisher(for:): \(fault.code)")
}
// A block observer: a Sendable token, removed when released.
let observed = Counter()
let observation = center.addHeadingEventObserver(from: proxy) { event in
    if event.heading != nil { observed.increment() }
}

proxy.enable()
var faults: [HeadingFault] = []
for await fault in center.faults(from: proxy) {
    faults.append(fault)
    break
}
var afterFault = 0
for await notification in center.notifications(named: .headingDidUpdate, object: proxy) {
    if notification.heading != nil { afterFault += 1 }
    if afterFault == 3 { break }
}
proxy.disable()
observation.cancel()
headings.cancel()
faultsByName.cancel()
bridge.cancel()
guard published > 0, observed.value > 0, faults.count == 1, afterFault == 3 else {
    fatalError("CenterObservers: published \(published), observed \(observed.value), faults \(faults), after \(afterFault)")
}
print("CenterObservers: \(published) headings published, \(observed.value) observed, fault \(faults[0].code), then \(afterFault) more")

/// A count a `@Sendable` observer may bump from wherever the center posts.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
