// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import Synchronization

/// Records what a subscriber or delegate receives, and lets a test await a count with a bound.
final class EventRecorder: Sendable {
    private let state = Mutex<(events: [HeadingEvent], completions: Int)>(([], 0))
    private let limit: Int
    private let whenFull: @Sendable () -> Void

    /// Creates a recorder that keeps the first `limit` events and calls `whenFull` once on reaching it.
    init(limit: Int = .max, whenFull: @escaping @Sendable () -> Void = {}) {
        self.limit = limit
        self.whenFull = whenFull
    }

    var events: [HeadingEvent] { state.withLock { $0.events } }
    var headings: [Heading] { events.compactMap(\.heading) }
    var completions: Int { state.withLock { $0.completions } }

    func record(_ event: HeadingEvent) {
        let count: Int? = state.withLock { state in
            guard state.events.count < limit else { return nil }
            state.events.append(event)
            return state.events.count
        }
        if count == limit { whenFull() }
    }
    func recordCompletion() { state.withLock { $0.completions += 1 } }

    /// Waits until `predicate` holds, polling the recorder, for at most `timeout`.
    func wait(
        for timeout: Duration = .seconds(10),
        until predicate: @Sendable ([HeadingEvent]) -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if predicate(events) { return true }
            await Task.yield()
            try? await Task.sleep(for: .milliseconds(1))
        }
        return predicate(events)
    }
}

extension EventRecorder: HeadingSourceDelegate {
    func headingSource(_ source: any HeadingSource, didUpdate heading: Heading) { record(.heading(heading)) }
    func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault) { record(.fault(fault)) }
    func headingSource(_ source: any HeadingSource, didChangeAuthorization status: HeadingAuthorizationStatus) {
        record(.authorizationChanged(status))
    }
}

/// Collects up to `count` elements of an async sequence, giving up after `timeout`.
func collect<S: AsyncSequence & Sendable>(
    _ count: Int,
    from sequence: S,
    timeout: Duration = .seconds(10)
) async -> [S.Element] where S.Element: Sendable {
    await withTaskGroup(of: [S.Element]?.self) { group in
        group.addTask {
            var collected: [S.Element] = []
            do {
                for try await element in sequence {
                    collected.append(element)
                    if collected.count == count { break }
                }
            } catch {}
            return collected
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next()!
        group.cancelAll()
        if let first { return first }
        return await group.next()! ?? []
    }
}

let epoch = Date(timeIntervalSince1970: 1_800_000_000)

func heading(_ trueHeading: Double, source: String = "scripted") -> Heading {
    Heading(trueHeading: trueHeading, magneticHeading: nil, timestamp: epoch, source: source)
}

func fault(_ code: HeadingFault.Code = .deviceLost, source: String = "scripted") -> HeadingFault {
    HeadingFault(code: code, source: source, reason: "test", timestamp: epoch)
}
