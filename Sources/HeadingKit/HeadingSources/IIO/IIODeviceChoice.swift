// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import HeadingPorts

/// The devices an endpoint names, found under its root.
package struct IIODeviceChoice: Sendable {
    /// The magnetometer.
    package let magnetometer: IIODevice
    /// The accelerometer beside it, if any.
    package let accelerometer: IIODevice?
    /// The gyroscope beside it, if any.
    package let gyroscope: IIODevice?

    /// Finds the devices.
    /// - Parameter endpoint: What to look for, and where.
    /// - Throws: ``IIOFailure`` (`sourceUnavailable`) saying what is missing.
    package init(endpoint: IIOEndpoint) throws(IIOFailure) {
        let devices = IIODevice.all(under: endpoint.root)
        func named(_ specification: String, _ type: IIODevice.ChannelType, _ what: String) throws(IIOFailure) -> IIODevice {
            guard let device = devices.first(where: { $0.isNamed(specification) }) else {
                let seen = devices.isEmpty ? "none" : LogText.list(devices.lazy.map(\.description))
                throw IIOFailure(
                    code: .sourceUnavailable, reason: "no IIO device '\(LogText.printable(specification))' under \(LogText.printable(endpoint.root)) (devices: \(seen))")
            }
            guard device.types.contains(type) else {
                throw IIOFailure(code: .sourceUnavailable, reason: "\(device) under \(LogText.printable(endpoint.root)) is no \(what) (no in_\(type.rawValue)_x_raw, _y_, _z_)")
            }
            return device
        }
        let magnetometer: IIODevice
        if let specification = endpoint.magnetometer {
            magnetometer = try named(specification, .magnetometer, "magnetometer")
        } else if let first = devices.first(where: { $0.types.contains(.magnetometer) }) {
            magnetometer = first
        } else {
            let seen = devices.isEmpty ? "no IIO devices" : "devices: " + LogText.list(devices.lazy.map(\.description))
            throw IIOFailure(code: .sourceUnavailable, reason: "no magnetometer under \(LogText.printable(endpoint.root)) (\(seen))")
        }
        /// The device of a type beside the magnetometer: itself, one with the same parent, or the only one.
        func beside(_ type: IIODevice.ChannelType) -> IIODevice? {
            if magnetometer.types.contains(type) { return magnetometer }
            let candidates = devices.filter { $0.types.contains(type) }
            return candidates.first { $0.parent != nil && $0.parent == magnetometer.parent } ?? (candidates.count == 1 ? candidates[0] : nil)
        }
        self.magnetometer = magnetometer
        switch endpoint.accelerometer {
        case "none": accelerometer = nil
        case let specification?: accelerometer = try named(specification, .accelerometer, "accelerometer")
        case nil: accelerometer = beside(.accelerometer)
        }
        switch endpoint.gyroscope {
        case "none": gyroscope = nil
        case let specification?: gyroscope = try named(specification, .gyroscope, "gyroscope")
        case nil: gyroscope = beside(.gyroscope)
        }
    }
}
