// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts

/// One device's three axes of each channel type it is read for (one IMU may carry the
/// magnetometer, the accelerometer and the gyroscope), read as whole scans from the kernel's
/// buffer (`/dev/iio:deviceN`, buffered mode): every axis sampled together by the driver at one
/// trigger, with the kernel's timestamp where the device has the channel. Direct reads take the three from
/// three files at three moments, which across a fast turn or a jolt belong to different attitudes.
///
/// Opening it enables the axes (and `in_timestamp`) in `scan_elements/`, lays the scan out from
/// every enabled channel's `_index` and `_type` (``IIOScanLayout``), gives the device a trigger
/// when it has none (its own, `NAME-devN` or another named after the chip: one its interrupt
/// drives) and enables the buffer; closing it disables the buffer and the channels it enabled. A
/// device that cannot (no buffer, no trigger, a `/sys` this user may not write) throws
/// ``IIOFailure/bufferUnavailable(_:)``, and the source reads it directly, saying why.
///
/// Reads never wait (`O_NONBLOCK`; the caller waits in `poll(2)` on ``descriptor``) and keep a
/// scan cut between two reads for the next. Bounded: at most 64 scans are taken a read.
///
/// Not Sendable: a reader thread owns it.
package final class IIOBuffer {
    /// One whole scan.
    package typealias Scan = IIOScanAssembler.Scan

    /// The device read.
    package let device: IIODevice
    /// The channel types read.
    package let types: [IIODevice.ChannelType]
    /// Where each enabled channel lies in a scan.
    package let layout: IIOScanLayout
    /// The character device, open for reading, non-blocking.
    private let node: CharacterDevice
    /// Its descriptor, to wait on in `poll(2)`.
    package var descriptor: Int32 { node.descriptor }
    /// The trigger given to the device (`nil`: it had one, or needs none).
    package let trigger: String?
    /// What was done to its sampling frequency for scans at the rate.
    package let frequency: IIOSamplingFrequency.Outcome
    /// The bytes read made into whole scans.
    private var assembler: IIOScanAssembler
    private let enabledHere: [String]
    /// Where a read puts its bytes: room for ``scansPerRead`` scans.
    private var scratch: [UInt8]

    /// Scans taken a read at most.
    package static let scansPerRead = 64

    /// Enables the buffer of `device`'s axes of `types` and opens its character device.
    /// - Parameters:
    ///   - device: The device (under `/sys/bus/iio/devices`: its character device is `/dev/` and its id).
    ///   - types: The channel types read from it.
    ///   - rate: The scans a second wanted: its sampling frequency is set to the smallest it lists at
    ///     least that, once it is found able to give scans (no trigger, the usual reason, leaves it
    ///     as it was) and before its buffer is enabled (drivers refuse a change while it is).
    ///   - trigger: The trigger to give it, by name (an administrator's `hrtimer` trigger); `nil` for its own.
    ///   - devices: The directory its triggers are in, `/sys/bus/iio/devices`.
    ///   - nodes: The directory of the character devices, `/dev`.
    /// - Throws: ``IIOFailure``, a buffer unavailable, naming what is missing or refused.
    package init(
        device: IIODevice, types: [IIODevice.ChannelType], rate: Double, trigger named: String? = nil, devices: String = IIOEndpoint.systemRoot, nodes: String = "/dev"
    ) throws(IIOFailure) {
        self.device = device
        self.types = types
        let directory = device.directory
        let elements = directory + "/scan_elements"
        let names = types.flatMap { type in ["x", "y", "z"].map { "in_\(type.rawValue)_\($0)" } }
        for name in names where SysfsAttribute.contents("\(elements)/\(name)_en") == nil {
            throw IIOFailure.bufferUnavailable("its driver has no buffer for it (no scan_elements/\(name)_en)")
        }
        guard SysfsAttribute.contents(directory + "/buffer/enable") != nil else { throw IIOFailure.bufferUnavailable("its driver has no buffer/enable") }
        let path = "\(nodes)/\(device.id)"
        // Opened first: the kernel lets one reader have it, so another program's is seen here. It
        // closes when this throws (released).
        let opened: CharacterDevice
        do throws(PortFailure) {
            opened = try CharacterDevice(path: path)
        } catch {
            switch error.code {
            // Under the shipped unit /dev holds no device (PrivateDevices=yes).
            case _ where error.isMissing: throw IIOFailure.bufferUnavailable("\(path): \(error.reason)" + Self.dropInHint)
            case .wrongKind: throw IIOFailure.bufferUnavailable("\(path) is \(error.reason)")
            case .busy: throw IIOFailure.bufferUnavailable("\(path) is in use by another program")
            default: throw IIOFailure.bufferUnavailable("cannot open \(path): \(error.reason)" + Self.permissionHint(error))
            }
        }
        // A buffer left enabled by a reader that was killed: its channels cannot change while it is.
        if Self.number(at: directory + "/buffer/enable") == 1, let failure = SysfsAttribute.write("0", to: directory + "/buffer/enable") {
            throw IIOFailure.bufferUnavailable("its buffer was left enabled and cannot be disabled: \(failure)\(Self.permissionHint(failure))")
        }
        // The axes and the timestamp; what another program left enabled stays in the layout.
        var enabled: [String] = []
        do throws(IIOFailure) {
            // Before anything is written: a device with no trigger (the usual reason) is left as it was.
            let trigger = try Self.trigger(for: device, named: named, devices: devices)
            frequency = IIOSamplingFrequency.adjust(device, for: rate, factor: 1)
            for name in names + ["in_timestamp"] {
                let path = "\(elements)/\(name)_en"
                guard SysfsAttribute.contents(path) != nil, Self.number(at: path) != 1 else { continue }
                if let failure = SysfsAttribute.write("1", to: path) {
                    throw IIOFailure.bufferUnavailable("cannot enable scan_elements/\(name)_en: \(failure)\(Self.permissionHint(failure))")
                }
                enabled.append(name)
            }
            layout = try Self.layout(in: elements)
            do throws(IIOScanError) {
                assembler = try IIOScanAssembler(layout: layout, types: types)
            } catch {
                throw IIOFailure.bufferUnavailable("its scan once enabled: \(error.reason)")
            }
            if let trigger, let failure = SysfsAttribute.write(trigger, to: directory + "/trigger/current_trigger") {
                throw IIOFailure.bufferUnavailable("cannot set trigger/current_trigger to \(trigger): \(failure)\(Self.permissionHint(failure))")
            }
            self.trigger = trigger
            if let failure = SysfsAttribute.write("1", to: directory + "/buffer/enable") {
                throw IIOFailure.bufferUnavailable("cannot enable buffer/enable: \(failure)\(Self.permissionHint(failure))")
            }
        } catch {
            Self.disable(enabled, in: elements)
            throw error
        }
        enabledHere = enabled
        node = opened
        scratch = [UInt8](repeating: 0, count: layout.scanSize * Self.scansPerRead)
    }

    deinit {
        // The character device closes after (the node is released with this buffer).
        _ = SysfsAttribute.write("0", to: device.directory + "/buffer/enable")
        Self.disable(enabledHere, in: device.directory + "/scan_elements")
    }

    /// Reads the whole scans waiting, at most ``scansPerRead``, and hands each to `body` in order.
    /// - Parameter body: Called with each scan.
    /// - Returns: `nil`, or why the device stopped answering (unbound, unplugged).
    package func read(_ body: (Scan) -> Void) -> String? {
        switch node.read(into: &scratch) {
        case .bytes(let count):
            assembler.take(scratch[..<count], body)
            return nil
        case .nothing: return nil
        case .failed(let reason): return "\(device)'s buffer: \(reason)"
        // A character device that ends (never so while the device is there: an empty one waits) is gone.
        case .ended: return "\(device)'s buffer ended"
        }
    }

    // MARK: Opening

    /// The layout of every enabled channel in `elements`.
    private static func layout(in elements: String) throws(IIOFailure) -> IIOScanLayout {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: elements) else {
            throw IIOFailure.bufferUnavailable("cannot list \(elements)")
        }
        var channels: [(name: String, index: Int, type: IIOScanType)] = []
        for file in names.sorted().prefix(512) where file.hasSuffix("_en") {
            let name = String(file.dropLast(3))
            guard number(at: "\(elements)/\(file)") == 1 else { continue }
            guard let index = number(at: "\(elements)/\(name)_index").flatMap({ Int(exactly: $0) }) else {
                throw IIOFailure.bufferUnavailable("scan_elements/\(name)_index is not a number")
            }
            guard let bytes = SysfsAttribute.contents("\(elements)/\(name)_type") else { throw IIOFailure.bufferUnavailable("scan_elements/\(name)_type cannot be read") }
            do throws(IIOScanError) {
                channels.append((name, index, try IIOScanType(parsing: bytes)))
            } catch {
                throw IIOFailure.bufferUnavailable("scan_elements/\(name)_type: \(error.reason)")
            }
        }
        do throws(IIOScanError) {
            return try IIOScanLayout(channels)
        } catch {
            throw IIOFailure.bufferUnavailable("its scan: \(error.reason)")
        }
    }

    /// The trigger to give `device`: the one `named` (unless it has it), else, when it has none,
    /// its own (`NAME-devN`) or one named after its chip; `nil` when it needs none (no `trigger/`)
    /// or has the one wanted.
    private static func trigger(for device: IIODevice, named: String?, devices: String) throws(IIOFailure) -> String? {
        guard let bytes = SysfsAttribute.contents(device.directory + "/trigger/current_trigger") else { return nil }
        let current = String(decoding: bytes.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let triggers = ((try? FileManager.default.contentsOfDirectory(atPath: devices)) ?? []).filter { $0.hasPrefix("trigger") }.sorted().prefix(64)
        let names = triggers.compactMap { IIODevice.text("\(devices)/\($0)/name") }
        if let named {
            guard current != named else { return nil }
            guard names.contains(named) else { throw IIOFailure.bufferUnavailable("no trigger named \(named) (trigger=): \(names.isEmpty ? "none at all" : names.joined(separator: ", "))") }
            return named
        }
        guard current.isEmpty else { return nil }
        let chip = device.name ?? device.id
        let own = "\(chip)-dev\(device.number)"
        guard let chosen = names.first(where: { $0 == own }) ?? names.first(where: { $0.hasPrefix(chip + "-") }) else {
            throw IIOFailure.bufferUnavailable(
                "it has no trigger (none named \(own) or \(chip)-…: its data-ready interrupt not wired; an hrtimer trigger made in configfs is named with trigger=)")
        }
        return chosen
    }

    private static func disable(_ names: [String], in elements: String) {
        for name in names { _ = SysfsAttribute.write("0", to: "\(elements)/\(name)_en") }
    }

    private static func number(at path: String) -> Double? {
        SysfsAttribute.contents(path).flatMap { IIOValue.parse($0) }
    }

    /// Where the way to the buffer under the shipped unit is told.
    private static let dropInHint = " (under the shipped unit: /usr/share/headingd/drop-ins/iio-buffer.conf and the udev rule it gives; or buffer=false)"

    private static func permissionHint(_ failure: PortFailure) -> String {
        failure.isRefusal ? dropInHint : ""
    }
}
