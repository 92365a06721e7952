// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

/// Where one of headingd's consumers (the systemd notifier, the NMEA 0183 and Signal K outputs,
/// metrics, the status board, history, MQTT) hears headings and faults: the process's
/// ``HeadingFanOut`` in the daemon, or a `NotificationCenter` (what a test posts to).
protocol HeadingEventCenter: Sendable {
    /// Calls `block` with every event from now on, in order; with `latestOnly`, of each batch only
    /// its newest heading (after the batch's other events): for a consumer that keeps the latest
    /// heading and counts the rest, which then copies one heading a batch.
    /// - Parameters:
    ///   - latestOnly: Whether a batch's older headings are skipped.
    ///   - block: Called with each event, where the processor delivers.
    /// - Returns: The subscription: it lasts until cancelled or released.
    func consume(latestOnly: Bool, _ block: @escaping @Sendable (HeadingEvent) -> Void) -> any HeadingEventSubscription
}

/// A consumer's subscription to a ``HeadingEventCenter``.
protocol HeadingEventSubscription: AnyObject, Sendable {
    /// Ends it. Calling it again does nothing.
    func cancel()
}

extension HeadingObservation: HeadingEventSubscription {}

extension NotificationCenter: HeadingEventCenter {
    /// Observes the center: every heading notification posted to it.
    func consume(latestOnly: Bool, _ block: @escaping @Sendable (HeadingEvent) -> Void) -> any HeadingEventSubscription {
        latestOnly ? addLatestHeadingEventObserver(using: block) : addHeadingEventObserver(using: block)
    }
}
