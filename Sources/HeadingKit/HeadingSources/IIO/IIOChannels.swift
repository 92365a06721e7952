// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts

/// One device's three axes of one channel type, held open and read with `pread` (direct mode):
/// value = (raw + offset) × scale, the scale and offset shared (`in_magn_scale`) or per axis
/// (`in_magn_x_scale`), then turned into the device frame by the kernel's mount matrix
/// (`in_magn_mount_matrix`, `in_mount_matrix` or `mount_matrix`): v_device = M × v_sensor.
///
/// Not Sendable: a reader thread owns it. The descriptors close when it goes.
package final class IIOChannels {
    /// The device read.
    package let device: IIODevice
    /// The channel type read.
    package let type: IIODevice.ChannelType
    /// The scale of each axis.
    package let scale: Vector3
    /// The offset of each axis, added to the raw value before scaling.
    package let offset: Vector3
    /// The kernel's mount matrix, identity when the driver gives none.
    package let mountMatrix: Matrix3
    private var descriptors: [Int32] = []
    /// The three raw files, for the watch: made once, not at each read.
    private var paths: [String] = []
    /// Told which file each read is in while it lasts, so that a read that never returns is seen
    /// from another thread (``IIOReadWatch``); `nil`: nobody watches.
    package var watch: IIOReadWatch?
    private var buffer = [UInt8](repeating: 0, count: IIOValue.maximumLength)

    /// Opens the three raw files and reads the scale, offset and mount matrix.
    /// - Parameters:
    ///   - device: The device.
    ///   - type: The channel type.
    /// - Throws: ``IIOFailure``: `permissionDenied` when this user may not read the files,
    ///   `deviceLost` when they are gone, `malformedInput` when an attribute is not a number.
    package init(device: IIODevice, type: IIODevice.ChannelType) throws(IIOFailure) {
        self.device = device
        self.type = type
        let base = "\(device.directory)/in_\(type.rawValue)"
        func attribute(_ name: String, default value: Double) throws(IIOFailure) -> Vector3 {
            var axes: [Double] = []
            for axis in ["x", "y", "z"] {
                var found: Double?
                // Per axis where the driver gives it, else the shared one, else the default.
                for path in ["\(base)_\(axis)_\(name)", "\(base)_\(name)"] {
                    guard let bytes = SysfsAttribute.contents(path) else { continue }
                    guard let number = IIOValue.parse(bytes) else {
                        throw IIOFailure(code: .malformedInput, reason: "\(path) holds '\(Self.shown(bytes))', not a number")
                    }
                    found = number
                    break
                }
                axes.append(found ?? value)
            }
            return Vector3(x: axes[0], y: axes[1], z: axes[2])
        }
        scale = try attribute("scale", default: 1)
        offset = try attribute("offset", default: 0)
        var matrix = Matrix3.identity
        for path in ["\(base)_mount_matrix", "\(device.directory)/in_mount_matrix", "\(device.directory)/mount_matrix"] {
            guard let bytes = SysfsAttribute.contents(path) else { continue }
            guard let read = IIOValue.matrix(bytes), read.isFinite else {
                throw IIOFailure(code: .malformedInput, reason: "\(path) holds '\(Self.shown(bytes))', not a mount matrix (a, b, c; d, e, f; g, h, i)")
            }
            matrix = read
            break
        }
        mountMatrix = matrix
        paths = ["x", "y", "z"].map { "\(base)_\($0)_raw" }
        for path in paths {
            switch SysfsAttribute.open(path) {
            case .success(let descriptor):
                descriptors.append(descriptor)
            case .failure(let failure):
                for open in descriptors { RegularFile.close(open) }
                descriptors = []
                let refused = failure.isRefusal
                throw IIOFailure(
                    code: refused ? .permissionDenied : .deviceLost,
                    reason: "cannot open \(LogText.printable(path)): \(failure.reason)"
                        + (refused ? " (a udev rule can make them readable: RUN+=\"/bin/sh -c 'chmod a+r /sys%p/in_*_raw'\")" : "")
                )
            }
        }
    }

    deinit {
        for descriptor in descriptors { RegularFile.close(descriptor) }
    }

    /// Reads the three axes now, in the device frame.
    /// - Returns: The vector.
    /// - Throws: ``IIOFailure``: `deviceLost` when the device is gone (unbound, unplugged),
    ///   `malformedInput` when a file holds no number.
    package func read() throws(IIOFailure) -> Vector3 {
        var raw = (0.0, 0.0, 0.0)
        for index in 0..<3 {
            watch?.begin(paths[index])
            let read = SysfsAttribute.read(descriptors[index], into: &buffer)
            watch?.end()
            let count: Int
            switch read {
            case .success(let bytes) where bytes > 0: count = bytes
            case .success: throw lost(index, "it read nothing")
            case .failure(let failure): throw lost(index, failure.reason)
            }
            guard count < buffer.count, let value = IIOValue.parse(buffer[..<count]) else {
                throw IIOFailure(
                    code: .malformedInput,
                    reason: "\(device): in_\(type.rawValue)_\(["x", "y", "z"][index])_raw holds '\(Self.shown(buffer[..<count]))', not a number"
                )
            }
            switch index {
            case 0: raw.0 = value
            case 1: raw.1 = value
            default: raw.2 = value
            }
        }
        return value(raw: Vector3(x: raw.0, y: raw.1, z: raw.2))
    }

    private func lost(_ index: Int, _ reason: String) -> IIOFailure {
        IIOFailure(code: .deviceLost, reason: "\(device) stopped answering: in_\(type.rawValue)_\(["x", "y", "z"][index])_raw: \(reason)")
    }

    /// The value of raw axes: (raw + offset) × scale, turned into the device frame.
    package func value(raw: Vector3) -> Vector3 {
        mountMatrix * Vector3(x: (raw.x + offset.x) * scale.x, y: (raw.y + offset.y) * scale.y, z: (raw.z + offset.z) * scale.z)
    }

    /// Bytes as a person may read them in a log: printable ASCII, the rest as `?`, at most 40.
    static func shown(_ bytes: some Collection<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(40).map { (0x20...0x7E).contains($0) || $0 == 0x0A ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: "?")
    }
}
