// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts

/// A device's own sampling frequency, set for direct reads at a rate: ST's drivers (`st_sensors`:
/// the LIS3DH, LSM303, L3G4200D …) power the chip up for each direct read and sleep two of its
/// sample periods first — at the 1 Hz they start at, 2 s an axis. So the frequency chosen is the
/// smallest the device lists (`sampling_frequency_available`) at least 8 × the rate (200 Hz for
/// 25 Hz: 10 ms an axis), else its fastest. A device read from its buffer gives a scan at each of
/// its samples: there the frequency is the smallest at least the rate (``adjust(_:for:factor:)``
/// with a factor of 1).
package enum IIOSamplingFrequency {
    /// What was done, for the log.
    package enum Outcome: Sendable, Equatable {
        /// The device has no writable frequency, or lists none: left as it is.
        case notAdjustable
        /// Already at the frequency chosen.
        case unchanged(Double)
        /// Set.
        case set(from: Double?, to: Double)
        /// It could not be written (a read-only /sys under systemd's ProtectKernelTunables=).
        case refused(Double, String)
    }

    /// The frequency for `rate` among `available`: the smallest at least `factor` × the rate, else the largest.
    package static func choose(for rate: Double, among available: [Double], factor: Double = 8) -> Double? {
        let sorted = available.filter { $0.isFinite && $0 > 0 }.sorted()
        return sorted.first { $0 >= rate * factor } ?? sorted.last
    }

    /// Sets `device`'s sampling frequency for reads at `rate`.
    /// - Parameters:
    ///   - device: The device.
    ///   - rate: Samples a second the source reads.
    ///   - factor: How many of the device's samples a read: 8 for direct reads, 1 for its buffer's scans.
    /// - Returns: What was done.
    package static func adjust(_ device: IIODevice, for rate: Double, factor: Double = 8) -> Outcome {
        let path = device.directory + "/sampling_frequency"
        guard let availableText = IIODevice.text(device.directory + "/sampling_frequency_available") else { return .notAdjustable }
        let available = availableText.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { IIOValue.parse(Array($0.utf8)) }
        guard let chosen = choose(for: rate, among: available, factor: factor) else { return .notAdjustable }
        let current = SysfsAttribute.contents(path).flatMap { IIOValue.parse($0) }
        if let current, abs(current - chosen) < 1e-6 { return .unchanged(chosen) }
        // A whole number as the kernel writes it; Int(exactly:) never traps on a device's 1e30.
        let text = Int(exactly: chosen).map(String.init) ?? String(chosen)
        if let failure = SysfsAttribute.write(text, to: path) { return .refused(chosen, failure.reason) }
        return .set(from: current, to: chosen)
    }
}
