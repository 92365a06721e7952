// headingd — examples: the DocC article "Writing a source", copied by scripts/examples.
// Do not edit here: edit Sources/HeadingKit/Documentation.docc/WritingASource.md.
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import HeadingKit
import Synchronization

/// A magnetometer read 20 times a second on a queue of its own. It learns whether it may read the
/// device a moment after being asked (as a permission prompt would answer), on that queue.
final class MagnetometerSource: HeadingSource {
    let name = "magnetometer"

    private struct State {
        weak var delegate: (any HeadingSourceDelegate)?
        var timer: (any DispatchSourceTimer)?
        var reading = 0
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "magnetometer")
    private let permitted: Bool

    init(permitted: Bool = true) { self.permitted = permitted }

    var delegate: (any HeadingSourceDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    func requestAuthorization() {
        // The answer comes later, on our queue: the proxy starts us undetermined meanwhile.
        queue.asyncAfter(deadline: .now() + .milliseconds(20)) { [self] in
            let delegate = self.delegate
            if permitted {
                delegate?.headingSource(self, didChangeAuthorization: .authorized)
            } else {
                let fault = HeadingFault(code: .permissionDenied, source: name, reason: "/dev/i2c-1: permission denied")
                delegate?.headingSource(self, didFailWith: fault)
                delegate?.headingSource(self, didChangeAuthorization: .denied)
            }
        }
    }

    func start() {
        state.withLock { state in
            guard state.timer == nil else { return }  // already started
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: .milliseconds(50))
            timer.setEventHandler { [weak self] in self?.read() }
            timer.resume()
            state.timer = timer
        }
    }

    func stop() {
        state.withLock { state in
            state.timer?.cancel()
            state.timer = nil
        }
    }

    /// One reading: a heading, or now and then a fault. The delegate is called outside the lock.
    private func read() {
        let (reading, delegate) = state.withLock { state in
            state.reading += 1
            return (state.reading, state.delegate)
        }
        if reading % 40 == 0 {
            delegate?.headingSource(self, didFailWith: HeadingFault(code: .outOfRange, source: name, reason: "field strength out of range"))
            return
        }
        let magnetic = Double(reading * 3 % 360)
        let heading = Heading(trueHeading: nil, magneticHeading: magnetic, timestamp: Date(), source: name, kind: .compass)
        if reading % 10 == 0 {
            // A burst read at once (the device's FIFO): one batch, oldest first.
            let earlier = Heading(trueHeading: nil, magneticHeading: magnetic - 1, timestamp: Date(), source: name, kind: .compass)
            delegate?.headingSource(self, didUpdateHeadings: [earlier, heading])
        } else {
            delegate?.headingSource(self, didUpdate: heading)
        }
    }
}

// Allowed: headings flow once authorized. Make the sequence before enable(), or the early
// events (the authorization among them) are missed.
let proxy = HeadingProxy(source: MagnetometerSource(), delivery: .immediate)
let headings = proxy.headings()
proxy.enable()
var received = 0
for await heading in headings {
    received += 1
    if received == 10 {
        print("WritingASource: \(received) magnetic headings, the last \(heading.magneticHeading ?? .nan)°, \(proxy.authorizationStatus)")
        break
    }
}
proxy.disable()

// Refused a moment later: started undetermined, then stopped; no heading after the refusal.
let source = MagnetometerSource(permitted: false)
let refused = HeadingProxy(source: source, delivery: .immediate)
let events = refused.events()
refused.enable()
var reason = ""
var headingsBefore = 0
eventLoop: for await event in events {
    switch event {
    case .heading: headingsBefore += 1
    case .fault(let fault) where fault.code == .permissionDenied: reason = fault.reason
    case .authorizationChanged(.denied):
        print("WritingASource: refused (\(reason)) after \(headingsBefore) undetermined headings; \(refused.authorizationStatus)")
        break eventLoop
    default: break
    }
}
