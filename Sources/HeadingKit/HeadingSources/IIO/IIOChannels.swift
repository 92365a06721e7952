// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One device's three axes of one channel type, held open and read with `pread` (direct mode):
/// value = (raw + offset) × scale, the scale and offset shared (`in_magn_scale`) or per axis
/// (`in_magn_x_scale`), then turned into the device frame by the kernel's mount matrix
/// (`in_magn_mount_matrix`, `in_mount_matrix` or `mount_matrix`): v_device = M × v_sensor.
///
/// Not Sendable: a reader thread owns it. The descriptors close when it goes.
package final class IIOChannels {
    /// What went wrong reading.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The fault it is.
        package let code: HeadingFault.Code
        /// A sentence for a person.
        package let reason: String
        package var description: String { reason }
    }

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
    /// - Throws: ``Failure``: `permissionDenied` when this user may not read the files,
    ///   `deviceLost` when they are gone, `malformedInput` when an attribute is not a number.
    package init(device: IIODevice, type: IIODevice.ChannelType) throws(Failure) {
        self.device = device
        self.type = type
        let base = "\(device.directory)/in_\(type.rawValue)"
        func attribute(_ name: String, default value: Double) throws(Failure) -> Vector3 {
            var axes: [Double] = []
            for axis in ["x", "y", "z"] {
                var found: Double?
                // Per axis where the driver gives it, else the shared one, else the default.
                for path in ["\(base)_\(axis)_\(name)", "\(base)_\(name)"] {
                    guard let bytes = Self.contents(path) else { continue }
                    guard let number = IIOValue.parse(bytes) else {
                        throw Failure(code: .malformedInput, reason: "\(path) holds '\(Self.shown(bytes))', not a number")
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
            guard let bytes = Self.contents(path) else { continue }
            guard let read = IIOValue.matrix(bytes), read.isFinite else {
                throw Failure(code: .malformedInput, reason: "\(path) holds '\(Self.shown(bytes))', not a mount matrix (a, b, c; d, e, f; g, h, i)")
            }
            matrix = read
            break
        }
        mountMatrix = matrix
        paths = ["x", "y", "z"].map { "\(base)_\($0)_raw" }
        for path in paths {
            switch Self.openAttribute(path) {
            case .success(let descriptor):
                descriptors.append(descriptor)
            case .failure(let failure):
                for open in descriptors { close(open) }
                descriptors = []
                let error = failure.errno
                throw Failure(
                    code: error == EACCES || error == EPERM ? .permissionDenied : .deviceLost,
                    reason: "cannot open \(LogText.printable(path)): \(failure.reason)"
                        + (error == EACCES || error == EPERM ? " (a udev rule can make them readable: RUN+=\"/bin/sh -c 'chmod a+r /sys%p/in_*_raw'\")" : "")
                )
            }
        }
    }

    /// Why an attribute could not be opened: the `errno`, or 0 when it opened but is no attribute.
    package struct OpenFailure: Error, Sendable {
        /// The `errno` of `open(2)`, or 0 when the file is not a regular file.
        package let errno: Int32
        /// A sentence for a person.
        package let reason: String
    }

    /// Opens a sysfs attribute without waiting (``RegularFile``): refused unless it is a regular
    /// file, as every sysfs attribute is (a FIFO, a directory, a device node never answer as one).
    /// - Parameters:
    ///   - path: The attribute.
    ///   - flags: `O_RDONLY` or `O_WRONLY`.
    /// - Returns: The open descriptor, or why not.
    package static func openAttribute(_ path: String, flags: Int32 = O_RDONLY) -> Result<Int32, OpenFailure> {
        switch RegularFile.open(path, flags: flags) {
        case .success(let opened): .success(opened.descriptor)
        case .failure(.cannotOpen(let code)): .failure(OpenFailure(errno: code, reason: String(cString: strerror(code))))
        case .failure(.notRegular(let kind)): .failure(OpenFailure(errno: 0, reason: "\(kind), not a sysfs attribute"))
        }
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }

    /// Reads the three axes now, in the device frame.
    /// - Returns: The vector.
    /// - Throws: ``Failure``: `deviceLost` when the device is gone (unbound, unplugged),
    ///   `malformedInput` when a file holds no number.
    package func read() throws(Failure) -> Vector3 {
        var raw = (0.0, 0.0, 0.0)
        for index in 0..<3 {
            watch?.begin(paths[index])
            let count = buffer.withUnsafeMutableBytes { pread(descriptors[index], $0.baseAddress, $0.count, 0) }
            watch?.end()
            guard count > 0 else {
                let reason = count == 0 ? "it read nothing" : String(cString: strerror(errno))
                throw Failure(code: .deviceLost, reason: "\(device) stopped answering: in_\(type.rawValue)_\(["x", "y", "z"][index])_raw: \(reason)")
            }
            guard count < buffer.count, let value = IIOValue.parse(buffer[..<count]) else {
                throw Failure(
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

    /// Writes `text` to a sysfs attribute (``openAttribute(_:flags:)``, so never to a FIFO).
    /// - Returns: `nil`, or the system's reason it could not.
    package static func write(_ text: String, to path: String) -> String? {
        let descriptor: Int32
        switch openAttribute(path, flags: O_WRONLY) {
        case .success(let opened): descriptor = opened
        case .failure(let failure): return failure.reason
        }
        defer { close(descriptor) }
        let written = Array(text.utf8).withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        return written > 0 ? nil : String(cString: strerror(errno))
    }

    /// The value of raw axes: (raw + offset) × scale, turned into the device frame.
    package func value(raw: Vector3) -> Vector3 {
        mountMatrix * Vector3(x: (raw.x + offset.x) * scale.x, y: (raw.y + offset.y) * scale.y, z: (raw.z + offset.z) * scale.z)
    }

    /// A small file's bytes, or `nil` when it is absent or unreadable.
    static func contents(_ path: String) -> [UInt8]? {
        guard case .success(let descriptor) = openAttribute(path) else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { return nil }
        return Array(bytes[..<count])
    }

    /// Bytes as a person may read them in a log: printable ASCII, the rest as `?`, at most 40.
    static func shown(_ bytes: some Collection<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(40).map { (0x20...0x7E).contains($0) || $0 == 0x0A ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: "?")
    }
}
