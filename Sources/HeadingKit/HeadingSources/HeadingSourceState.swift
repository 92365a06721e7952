// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// The plumbing every ``HeadingSource`` shares: its weak delegate and its own mutable state behind
/// one lock, and the one place a ``HeadingSourceReport`` becomes a delegate call.
///
/// Shaped like swift-service-lifecycle's `LockedValueBox`: state is reached only through
/// ``withLock(_:)``. The delegate is read under the lock and called after it is released, so a
/// delegate may call back into the source.
package final class HeadingSourceState<Value>: Sendable {
    private struct Storage {
        weak var delegate: (any HeadingSourceDelegate)?
        var value: Value
    }

    private let storage: Mutex<Storage>

    /// Creates the box.
    /// - Parameter value: The source's initial state.
    package init(_ value: sending Value) {
        storage = Mutex(Storage(value: value))
    }

    /// The source's delegate. Held weakly.
    package var delegate: (any HeadingSourceDelegate)? {
        get { storage.withLock { $0.delegate } }
        set { storage.withLock { $0.delegate = newValue } }
    }

    /// Runs `body` with the state, under the lock.
    /// - Parameter body: Reads or changes the state; must not call out of the source.
    /// - Returns: What `body` returns.
    package func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try storage.withLock { try body(&$0.value) }
    }

    /// Hands one report to the delegate, if there is one.
    /// - Parameters:
    ///   - report: The heading, fault or authorization change.
    ///   - source: The source reporting it: the delegate's first argument.
    package func report(_ report: HeadingSourceReport, from source: any HeadingSource) {
        guard let delegate else { return }
        switch report {
        case .heading(let heading): delegate.headingSource(source, didUpdate: heading)
        case .fault(let fault): delegate.headingSource(source, didFailWith: fault)
        case .authorizationChanged(let status): delegate.headingSource(source, didChangeAuthorization: status)
        }
    }

    /// Hands the end of a condition reported as a fault to the delegate, if there is one.
    /// - Parameters:
    ///   - notice: The ``HeadingNotice/Code/recovered`` notice.
    ///   - source: The source reporting it: the delegate's first argument.
    package func report(recovery notice: HeadingNotice, from source: any HeadingSource) {
        delegate?.headingSource(source, didRecover: notice)
    }

    /// Hands several headings to the delegate in one call, if there is one.
    /// - Parameters:
    ///   - headings: The headings, oldest first; nothing is reported when empty.
    ///   - source: The source reporting them: the delegate's first argument.
    package func report(headings: [Heading], from source: any HeadingSource) {
        guard !headings.isEmpty, let delegate else { return }
        delegate.headingSource(source, didUpdateHeadings: headings)
    }
}
