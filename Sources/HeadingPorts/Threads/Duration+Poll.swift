// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

extension Duration {
    /// The duration in whole milliseconds for `poll(2)`'s timeout, rounded up (a wait never ends
    /// before its deadline and then spins on a 0), clamped to `Int32`; a negative duration is 0.
    /// The one conversion of the project's poll loops.
    package var pollMilliseconds: Int32 {
        let parts = components
        guard parts.seconds >= 0, self > .zero else { return 0 }
        let whole = parts.seconds.multipliedReportingOverflow(by: 1000)
        guard !whole.overflow else { return .max }
        let fraction = (parts.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: whole.partialValue.addingReportingOverflow(fraction).partialValue)
    }
}
