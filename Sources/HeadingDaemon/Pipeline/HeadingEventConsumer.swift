// headingd
// SPDX-License-Identifier: Apache-2.0

/// An output that hears the fan-out: it subscribes when ``startConsuming()`` is called, which
/// ``OutputSet`` does as it opens the output, before the output's `run()` is scheduled and before
/// the pipeline's sources start. So an event the sources deliver at once (a device that cannot be
/// opened: a fault in the first millisecond) reaches every output, whenever its task gets a thread.
/// An output's `run()` calls it too (the tests run outputs alone); a second call does nothing.
protocol HeadingEventConsumer: AnyObject, Sendable {
    /// Subscribes to the fan-out, if not yet subscribed.
    func startConsuming()
}
