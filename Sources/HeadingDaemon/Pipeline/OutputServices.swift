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
    /// What an output of `kind` runs with: its metrics under the kind's label (`nmea0183_tcp`).
    func services<Kind: OutputKind>(for kind: Kind.Type) -> OutputServices {
        OutputServices(
            center: fanOut, metrics: metrics.output(kind.label ?? String(describing: kind)), logger: logger, group: MultiThreadedEventLoopGroup.singleton
        )
    }
}
