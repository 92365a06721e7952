// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import NIOCore
import Synchronization

/// What every NMEA 0183 output sends, whatever carries it: observes the heading center, keeps the
/// output's rate (``OutputRate``: a heading that comes early waits for its slot, replaced by a
/// newer one), encodes each heading's sentences once, and hands the bytes to the transport. After
/// a fault, until the next heading, `THS` says mode `V` at once and then once a second.
final class NMEA0183Sender: Sendable {
    /// What to write, and how often.
    struct Configuration: Sendable, Equatable {
        let sentences: [NMEA0183Encoder.Sentence]
        let encoder: NMEA0183Encoder
        let maximumHertz: Double
    }

    private struct State {
        var rate: OutputRate<Heading?>
        var rateOfTurn = RateOfTurnEstimator()
        var pendingTask: Scheduled<Void>?
        var isInvalid = false
        var isStopped = false
    }

    private let configuration: Configuration
    private let center: any HeadingEventCenter
    private let eventLoop: any EventLoop
    private let deliver: @Sendable (ByteBuffer) -> Void
    private let state: Mutex<State>
    private let origin = ContinuousClock.now
    private let observation = HeadingSubscriptionSlot()

    /// - Parameters:
    ///   - configuration: What to write, and how often.
    ///   - center: Where headings and faults come from (the fan-out; a center in tests).
    ///   - eventLoop: Where the waiting heading and the `V` repeats are timed.
    ///   - deliver: Hands one heading's sentences to the transport; called where the processor delivers
    ///     or the event loop, one call at a time per heading, never blocking.
    init(
        configuration: Configuration, center: any HeadingEventCenter, eventLoop: any EventLoop,
        deliver: @escaping @Sendable (ByteBuffer) -> Void
    ) {
        self.configuration = configuration
        self.center = center
        self.eventLoop = eventLoop
        self.deliver = deliver
        self.state = Mutex(State(rate: OutputRate(maximumHertz: configuration.maximumHertz)))
    }

    /// Starts hearing headings and faults; a second call does nothing.
    func start() {
        observation.subscribe(to: center, latestOnly: false) { [weak self] event in self?.receive(event) }
    }

    /// Stops observing and cancels the timer; nothing is delivered after it returns but a call
    /// already under way.
    func stop() {
        observation.cancel()
        state.withLock { state in
            state.isStopped = true
            state.pendingTask?.cancel()
            state.pendingTask = nil
        }
    }

    private func receive(_ event: HeadingEvent) {
        let now = origin.duration(to: .now)
        switch event {
        case .heading(let heading):
            let send: Heading?? = state.withLock { state in
                guard !state.isStopped else { return nil }
                state.isInvalid = false
                return state.rate.offer(heading, at: now)
            }
            if let send { emit(send) } else { scheduleWaiting() }
        case .fault:
            let first = state.withLock { state in
                defer { state.isInvalid = true }
                return !state.isInvalid && !state.isStopped
            }
            if first { emit(nil) }
            scheduleWaiting()
        case .authorizationChanged, .notice:
            break
        }
    }

    /// Times the waiting heading's slot, or the next `V` while there is no heading.
    private func scheduleWaiting() {
        state.withLock { state in
            guard state.pendingTask == nil, !state.isStopped else { return }
            let delay: Duration
            if let deadline = state.rate.nextDeadline {
                delay = max(.zero, deadline - origin.duration(to: .now))
            } else if state.isInvalid {
                delay = .seconds(1)
            } else {
                return
            }
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            state.pendingTask = eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) { [weak self] in self?.wake() }
        }
    }

    private func wake() {
        let now = origin.duration(to: .now)
        let (due, invalid): (Heading??, Bool) = state.withLock { state in
            state.pendingTask = nil
            guard !state.isStopped else { return (nil, false) }
            return (state.rate.due(at: now), state.isInvalid)
        }
        if let due {
            emit(due)
        } else if invalid {
            emit(nil)
        }
        scheduleWaiting()
    }

    /// Encodes one heading (`nil`: no healthy source) and delivers the bytes.
    private func emit(_ heading: Heading?) {
        var bytes: [UInt8] = []
        for sentence in configuration.sentences {
            if let heading {
                if sentence == .rot {
                    let rate = state.withLock { $0.rateOfTurn.rate(after: heading) }
                    if let rate, let encoded = configuration.encoder.rateOfTurn(rate) { bytes += encoded }
                } else if let encoded = configuration.encoder.encode(sentence, heading: heading) {
                    bytes += encoded
                }
            } else if sentence == .ths, let encoded = configuration.encoder.encode(.ths, heading: nil) {
                bytes += encoded
            }
        }
        if !bytes.isEmpty { deliver(ByteBuffer(bytes: bytes)) }
    }
}
