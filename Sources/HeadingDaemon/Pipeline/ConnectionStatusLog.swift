// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKitGPSD
import ServiceLifecycle

/// Prints the gpsd connection's progress on standard error (and tells the systemd notifier): the first connection attempt of
/// each outage, and each time gpsd starts streaming. Retries are not printed here: each failed
/// attempt is already a fault line that says when the next one is.
struct ConnectionStatusLog: Service {
    /// The source watched.
    let source: GPSDHeadingSource
    /// Told of every state, for systemd's `STATUS=`, when headingd runs under systemd.
    let notifier: SystemdNotifier?
    /// The source's states from the moment this log was made: subscribed here rather than in
    /// ``run()``, which the service group may start after the source has already tried once
    /// (a refused connection goes from `connecting` to `retrying` in microseconds), and that
    /// first `connecting` line was then never printed.
    private let states: AsyncStream<GPSDHeadingSource.ConnectionState>

    /// Creates the log, subscribed to the source's states at once.
    /// - Parameters:
    ///   - source: The source watched.
    ///   - notifier: Told of every state, when headingd runs under systemd.
    init(source: GPSDHeadingSource, notifier: SystemdNotifier?) {
        self.source = source
        self.notifier = notifier
        self.states = source.connectionStates()
    }

    /// Prints until headingd shuts down.
    func run() async {
        for await state in states.cancelOnGracefulShutdown() {
            notifier?.connectionChanged(state == .watching ? nil : state.description)
            switch state {
            case .connecting(attempt: 1), .watching:
                LineWriter.standardError.write("headingd: \(source.name): \(state)")
            case .idle, .connecting, .waitingToRetry:
                break
            }
        }
    }
}
