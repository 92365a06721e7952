// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import ServiceLifecycle
import Synchronization

/// Tells systemd how headingd is doing, through `$NOTIFY_SOCKET` (see ``NotifySocket``):
/// - `READY=1` once running (the source enabled and its first connection attempt under way);
/// - `STATUS=` whenever the state changes: waiting for the first heading, delivering (last
///   heading and rate), a fault, or the gpsd connection retrying;
/// - `WATCHDOG=1` every half `$WATCHDOG_USEC` from its own loop — not gated on sensor data, so
///   an unplugged compass does not make systemd restart headingd over and over;
/// - `STOPPING=1` when shutdown begins (SIGTERM, SIGINT) — not when the group ends for a SIGHUP
///   reload: ``ConfigurationReloader`` has said `RELOADING=1`, and the next group's notifier says
///   `READY=1`.
final class SystemdNotifier: Service, Sendable {
    private struct State {
        var headings = 0
        var lastHeading: Heading?
        var fault: HeadingFault?
        var connection: String?
        var lastStatus = ""
        var rate = 0.0
        var headingsAtLastTick = 0
        /// `READY=1` goes first: no `STATUS=` before it.
        var isReady = false
    }

    private let socket: NotifySocket
    private let center: any HeadingEventCenter
    private let sourceName: String
    private let watchdogInterval: Duration?
    /// The time on the clock since this notifier was made.
    private let elapsed: @Sendable () -> Duration
    /// Sleeps until the clock shows this much time since this notifier was made.
    private let sleepUntilElapsed: @Sendable (Duration) async throws -> Void
    private let isReloading: @Sendable () -> Bool
    private let state = Mutex(State())
    /// The center's observer, set once in init (its closure needs `self`); removed when this
    /// value goes away, with the observation.
    private let observation = HeadingSubscriptionSlot()

    /// The interval for `WATCHDOG=1`: half of `$WATCHDOG_USEC`, when it is set for this process.
    static func watchdogIntervalFromEnvironment() -> Duration? {
        guard let text = getenv("WATCHDOG_USEC").map({ String(cString: $0) }), let microseconds = UInt64(text),
            microseconds > 0
        else { return nil }
        if let pid = getenv("WATCHDOG_PID").map({ String(cString: $0) }), pid != String(getpid()) { return nil }
        return .microseconds(microseconds / 2)
    }

    /// Creates the notifier and starts observing the center at once.
    /// - Parameters:
    ///   - socket: systemd's socket.
    ///   - center: Where headings and faults come from (the fan-out; a center in tests).
    ///   - sourceName: The source's name, for `STATUS=`.
    ///   - watchdogInterval: How often to send `WATCHDOG=1`; `nil` for never.
    ///   - clock: The clock for the watchdog and status ticks.
    ///   - isReloading: Whether a shutdown is the end of one configuration before the next (no
    ///     `STOPPING=1` then: the reloader has said `RELOADING=1`).
    init<C: Clock>(
        socket: NotifySocket, center: any HeadingEventCenter = NotificationCenter.heading, sourceName: String,
        watchdogInterval: Duration?, clock: C = ContinuousClock(), isReloading: @escaping @Sendable () -> Bool = { false }
    ) where C.Duration == Duration {
        self.isReloading = isReloading
        self.socket = socket
        self.center = center
        self.sourceName = sourceName
        self.watchdogInterval = watchdogInterval
        let origin = clock.now
        self.elapsed = { origin.duration(to: clock.now) }
        self.sleepUntilElapsed = { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) }
        observation.subscribe(to: center, latestOnly: false) { [weak self] event in self?.handle(event) }
    }


    /// Sends `READY=1`, then ticks (watchdog, status) until shutdown, and sends `STOPPING=1`.
    func run() async {
        let interval = watchdogInterval ?? .seconds(5)
        let firstTick = elapsed() + interval  // on the clock before READY=1, which a watcher may act on
        socket.send("READY=1", waitingAtMost: NotifySocket.essentialWait)
        state.withLock { $0.isReady = true }
        sendStatusIfChanged()
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                // Ticks on a grid of instants on the clock one interval apart, not sleeps from
                // whenever the last tick ended: no drift, and a loop that reaches its sleep late
                // (a busy machine) sends the tick at once. Ticks missed in a longer stall are not
                // sent in a burst: the next is the first grid instant still ahead.
                var due = firstTick
                while !Task.isCancelled {
                    do { try await self.sleepUntilElapsed(due) } catch { break }
                    guard !Task.isCancelled else { break }  // a clock may end a sleep early on cancellation
                    self.tick(seconds: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
                    let now = self.elapsed()
                    due += interval * (Int(((now - due) / interval).rounded(.down)) + 1)
                }
            }
        } onGracefulShutdown: { [socket, isReloading] in
            if !isReloading() { socket.send("STOPPING=1", waitingAtMost: NotifySocket.essentialWait) }
        }
    }

    /// Records the gpsd connection's state, such as `retrying in 1.0 s`, for `STATUS=`.
    func connectionChanged(_ description: String?) {
        state.withLock { $0.connection = description }
        sendStatusIfChanged()
    }

    private func tick(seconds: Double) {
        if watchdogInterval != nil { socket.send("WATCHDOG=1") }
        state.withLock { state in
            state.rate = Double(state.headings - state.headingsAtLastTick) / max(seconds, 0.001)
            state.headingsAtLastTick = state.headings
        }
        sendStatusIfChanged()
    }

    private func handle(_ event: HeadingEvent) {
        let changed = state.withLock { state -> Bool in
            switch event {
            case .heading(let heading):
                state.headings += 1
                state.lastHeading = heading
                defer { state.fault = nil }
                return state.fault != nil || state.headings == 1
            case .fault(let fault):
                state.fault = fault
                return true
            case .authorizationChanged, .notice:
                // A change of source shows in the next heading's STATUS=.
                return false
            }
        }
        if changed { sendStatusIfChanged() }
    }

    private func sendStatusIfChanged() {
        let status: String? = state.withLock { state in
            let text = Self.status(state, sourceName: sourceName)
            guard state.isReady, text != state.lastStatus else { return nil }
            state.lastStatus = text
            return text
        }
        // Not sent (a queue systemd has not read): sent again at the next tick.
        if let status, !socket.send("STATUS=\(status)") {
            state.withLock { if $0.lastStatus == status { $0.lastStatus = "" } }
        }
    }

    private static func status(_ state: State, sourceName: String) -> String {
        if let fault = state.fault {
            var text = "\(fault.source): \(fault.code): \(fault.reason)"
            if let connection = state.connection, connection.hasPrefix("retrying") { text += " (\(connection))" }
            return String(text.prefix(200))
        }
        guard let heading = state.lastHeading else {
            return "waiting for the first heading from \(sourceName)" + (state.connection.map { " (\($0))" } ?? "")
        }
        let value = heading.trueHeading.map { "\(HeadingLineFormatter.degrees($0)) true" }
            ?? "\(HeadingLineFormatter.degrees(heading.magneticHeading)) magnetic"
        return "\(heading.source): \(value), \(String(format: "%.1f", state.rate)) headings/s"
    }
}
