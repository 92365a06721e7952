// headingd — HeadingKitGPSD
// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// One ``GPSDHeadingSource/connectionStates()`` stream: given each state after the source's lock
/// is released, and never a state older than one it was given (a new stream's first state and a
/// change made meanwhile may be handed over in either order). Its lock guards the yield alone and
/// is taken inside nothing else.
final class ConnectionStateObserver: Sendable {
    private let continuation: AsyncStream<GPSDHeadingSource.ConnectionState>.Continuation
    /// The generation of the last state yielded.
    private let delivered = Mutex(-1)

    init(_ continuation: AsyncStream<GPSDHeadingSource.ConnectionState>.Continuation) {
        self.continuation = continuation
    }

    /// Yields `state` unless a later generation's state was yielded already.
    func deliver(_ state: GPSDHeadingSource.ConnectionState, generation: Int) {
        delivered.withLock { last in
            guard generation > last else { return }
            last = generation
            continuation.yield(state)
        }
    }

    /// Ends the stream.
    func finish() { continuation.finish() }
}

/// A connection state to give the streams that were open when it was recorded.
struct ConnectionStateChange {
    let state: GPSDHeadingSource.ConnectionState
    let generation: Int
    let observers: [ConnectionStateObserver]

    /// Gives it to each stream: call with no lock held.
    func deliver() {
        for observer in observers { observer.deliver(state, generation: generation) }
    }
}
