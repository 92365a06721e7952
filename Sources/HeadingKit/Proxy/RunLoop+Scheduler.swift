// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

#if !canImport(Combine)
public import Dispatch
public import Foundation
@preconcurrency public import OpenCombine
public import OpenCombineDispatch

// `receive(on: RunLoop.main)` as Combine code writes it, on Linux. OpenCombine has a RunLoop
// scheduler only as `RunLoop.main.ocombine` in OpenCombineFoundation, which also brings
// FoundationNetworking (libcurl, TLS, Kerberos, +8 MB) into every process that links it; so this
// is by hand. `receive(on: DispatchQueue.main)` needs nothing here: OpenCombineDispatch, which
// HeadingKit depends on, makes `DispatchQueue` itself a scheduler on Linux.
//
// Times are dispatch times (`DispatchQueue.SchedulerTimeType`), so strides are written the same
// way as for a queue (`.milliseconds(100)`). Like Core Location's run-loop delivery, nothing runs
// unless the run loop does (`RunLoop.main.run()`, or an app's).

extension RunLoop: @retroactive OpenCombine.Scheduler {
    /// Dispatch times: the run loop's scheduler shares the queue scheduler's time and strides.
    public typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType

    /// Options for scheduling on a run loop: there are none.
    public struct SchedulerOptions: Sendable {}

    /// Now, as a dispatch time.
    public var now: SchedulerTimeType { SchedulerTimeType(DispatchTime.now()) }

    /// No tolerance is needed.
    public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

    /// Runs `action` on this run loop's next pass, in the order scheduled.
    /// - Parameters:
    ///   - options: Ignored.
    ///   - action: The work.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        nonisolated(unsafe) let action = action  // run only on this run loop's thread
        perform { action() }
    }

    /// Runs `action` on this run loop at `date` or soon after.
    /// - Parameters:
    ///   - date: When.
    ///   - tolerance: Ignored.
    ///   - options: Ignored.
    ///   - action: The work.
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        nonisolated(unsafe) let action = action
        add(Timer(fire: Self.date(of: date), interval: 0, repeats: false) { _ in action() }, forMode: .default)
    }

    /// Runs `action` on this run loop from `date` on, every `interval`, until cancelled.
    /// - Parameters:
    ///   - date: The first time.
    ///   - interval: The period.
    ///   - tolerance: Ignored.
    ///   - options: Ignored.
    ///   - action: The work.
    /// - Returns: Cancels the repetition.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        nonisolated(unsafe) let action = action
        let seconds = max(Double(interval.magnitude) / 1e9, 0.000_001)
        let timer = Timer(fire: Self.date(of: date), interval: seconds, repeats: true) { _ in action() }
        add(timer, forMode: .default)
        nonisolated(unsafe) let scheduled = timer  // invalidated from any thread: Timer allows it
        return AnyCancellable { scheduled.invalidate() }
    }

    /// The wall-clock date of a dispatch time.
    private static func date(of time: SchedulerTimeType) -> Date {
        let nanoseconds = Double(Int64(bitPattern: time.dispatchTime.uptimeNanoseconds &- DispatchTime.now().uptimeNanoseconds))
        return Date(timeIntervalSinceNow: nanoseconds / 1e9)
    }
}
#endif
