// headingd — HeadingKitTesting
// SPDX-License-Identifier: Apache-2.0

public import HeadingKit

#if canImport(Combine)
public import Combine
#else
@preconcurrency public import OpenCombine
#endif

extension HeadingProcessor {
    /// Calls `receive` with every event the processor delivers, where it delivers, as a stage of
    /// the processor: the place headingd's typed fan-out takes (its systemd notifier, outputs,
    /// metrics, status, history and MQTT hear headings there, not through a notification
    /// center). HeadingKit keeps its stage API to its own package; this opens it to tests and
    /// benchmarks, which measure that path.
    /// - Parameter receive: Called with each event, in order (a batch's events one by one).
    /// - Returns: A cancellable that stops the calls.
    public func addTestingStage(_ receive: @escaping @Sendable (HeadingEvent) -> Void) -> AnyCancellable {
        addStage(receive)
    }
}
