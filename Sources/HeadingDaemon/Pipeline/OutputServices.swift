// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Logging
import NIOCore
import NIOPosix

/// What one output runs with, taken from ``OutputContext`` under its `output` label: the fan-out it
/// hears, its own metrics, the log, and the event loops its sockets run on.
struct OutputServices: Sendable {
    /// Where headings and faults come from: the fan-out (a center in tests).
    let center: any HeadingEventCenter
    /// Its metrics under its label: clients, messages written and dropped.
    let metrics: OutputMetrics?
    /// Where it says what it does.
    let logger: Logger
    /// SwiftNIO's shared event loops.
    let group: any EventLoopGroup
}

extension OutputContext {
    /// What the output labelled `label` (`nmea0183_tcp`) runs with.
    func services(label: String) -> OutputServices {
        OutputServices(center: fanOut, metrics: metrics.output(label), logger: logger, group: MultiThreadedEventLoopGroup.singleton)
    }
}
