// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts

/// One device of Linux's Industrial I/O subsystem as sysfs shows it (`/sys/bus/iio/devices/iio:deviceN`):
/// its name, label, the parent device it hangs from, and which of the channel types a compass
/// needs it has. Read once; nothing is held open.
package struct IIODevice: Sendable, Hashable, CustomStringConvertible {
    /// A kind of channel: `in_<type>_{x,y,z}_raw`.
    package enum ChannelType: String, Sendable, Hashable, CaseIterable {
        /// A magnetometer: Gauss after scale and offset.
        case magnetometer = "magn"
        /// An accelerometer: m/s² after scale and offset.
        case accelerometer = "accel"
        /// A gyroscope: rad/s after scale and offset.
        case gyroscope = "anglvel"
    }

    /// `iio:deviceN`.
    package let id: String
    /// Its directory.
    package let directory: String
    /// The chip's name (`hmc5883l`), when it gives one.
    package let name: String?
    /// Its label (`accel-base`), when it has one.
    package let label: String?
    /// Where it hangs in the device tree (the resolved parent directory): devices of one chip share it.
    package let parent: String?
    /// The channel types it has all three axes of.
    package let types: Set<ChannelType>

    /// The number in `iio:deviceN`, for ordering.
    package var number: Int { Int(id.dropFirst("iio:device".count)) ?? Int.max }

    /// `iio:deviceN (name)`, the id, name and label with control characters escaped (a `name`
    /// holding a newline must not forge a log line).
    package var description: String {
        var text = LogText.printable(id, limit: 40)
        if let name { text += " (\(LogText.printable(name, limit: 40))\(label.map { ", \(LogText.printable($0, limit: 40))" } ?? ""))" }
        return text
    }

    /// Reads a device directory.
    /// - Parameter directory: The directory, such as `/sys/bus/iio/devices/iio:device0`.
    package init(directory: String) {
        self.directory = directory
        id = URL(fileURLWithPath: directory).lastPathComponent
        name = Self.text(directory + "/name")
        label = Self.text(directory + "/label")
        let resolved = URL(fileURLWithPath: directory).resolvingSymlinksInPath()
        parent = resolved.deletingLastPathComponent().path
        types = Set(ChannelType.allCases.filter { type in
            ["x", "y", "z"].allSatisfy { SysfsAttribute.exists("\(directory)/in_\(type.rawValue)_\($0)_raw") }
        })
    }

    /// Whether `specification` names it: its id (`iio:device2`), name or label.
    package func isNamed(_ specification: String) -> Bool {
        specification == id || specification == name || specification == label
    }

    /// The devices under `root`, in the kernel's order.
    /// - Parameter root: `/sys/bus/iio/devices`, or a tree of the same shape.
    /// - Returns: The devices, `iio:device0` first; none when the directory cannot be read.
    package static func all(under root: String) -> [IIODevice] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        return names.filter { $0.hasPrefix("iio:device") }.map { IIODevice(directory: root + "/" + $0) }
            .sorted { $0.number != $1.number ? $0.number < $1.number : $0.id < $1.id }
    }

    /// A short attribute's text, trimmed; `nil` when absent, unreadable, empty or not text.
    static func text(_ path: String) -> String? {
        guard let bytes = SysfsAttribute.contents(path), !bytes.contains(0),
            let text = String(bytes: bytes.prefix(256), encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty
        else { return nil }
        return text
    }
}
