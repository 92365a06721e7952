// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration
import Foundation
import HeadingOutputs

/// The `[outputs.nmea2000]` table: where headingd is a node on the NMEA 2000 bus, and
/// who it says it is there. Off while it names no interface.
struct NMEA2000OutputSettings: Sendable, Equatable {
    /// Where the node's frames go.
    enum Interface: Sendable, Equatable, CustomStringConvertible {
        /// A SocketCAN interface: `socketcan://can0`.
        case socketCAN(String)
        /// A Yacht Devices gateway in RAW mode over TCP: `tcp://HOST:PORT?format=ydraw`.
        case yachtDevicesRaw(host: String, port: Int)
        /// An Actisense NGT-1, data only: `serial:///dev/ttyUSB0?format=actisense[&baud=115200]`.
        case actisense(device: String, baud: Int)

        /// What the setting accepts.
        static let forms = "socketcan://INTERFACE (can0, vcan0), tcp://HOST:PORT?format=ydraw (a Yacht Devices gateway in RAW mode) "
            + "or serial:///dev/DEVICE?format=actisense[&baud=115200] (an Actisense NGT-1, data only)"

        /// Whether headingd is a node of its own there (not through a gateway that is one).
        var isFullNode: Bool {
            if case .actisense = self { return false }
            return true
        }

        /// Parses the setting; `nil` for anything else.
        init?(_ text: String) {
            if text.hasPrefix("socketcan://") {
                let name = text.dropFirst("socketcan://".count)
                guard (1...15).contains(name.utf8.count),
                    name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") })
                else { return nil }
                self = .socketCAN(String(name))
                return
            }
            if text.hasPrefix("serial://"), let components = URLComponents(string: text), components.path.hasPrefix("/"),
                components.path.utf8.count <= 4096, let items = components.queryItems,
                items.contains(URLQueryItem(name: "format", value: "actisense")),
                items.allSatisfy({ $0.name == "format" || ($0.name == "baud" && [9600, 19200, 38400, 57600, 115200].contains(Int($0.value ?? "") ?? 0)) })
            {
                self = .actisense(device: components.path, baud: items.first { $0.name == "baud" }.flatMap { Int($0.value ?? "") } ?? 115_200)
                return
            }
            guard let components = URLComponents(string: text), components.scheme == "tcp", let host = components.host, !host.isEmpty,
                let port = components.port, (1...65535).contains(port), components.path.isEmpty,
                components.queryItems == [URLQueryItem(name: "format", value: "ydraw")]
            else { return nil }
            self = .yachtDevicesRaw(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
        }

        var description: String {
            switch self {
            case .socketCAN(let name): "socketcan://\(name)"
            case .yachtDevicesRaw(let host, let port): "tcp://\(host.contains(":") ? "[\(host)]" : host):\(port)?format=ydraw"
            case .actisense(let device, let baud): "serial://\(device)?format=actisense&baud=\(baud)"
            }
        }
    }

    /// The interface; `nil` for no NMEA 2000 output.
    var interface: Interface?
    /// The most headings a second (127250 at each).
    var rate = 10.0
    /// The NAME's manufacturer code (11 bits). headingd has none of its own: 2046 is the NMEA2000
    /// library's "free" choice for a node without one.
    var manufacturerCode = 2046
    /// The NAME's device class: 40, steering and control surfaces.
    var deviceClass = 40
    /// The NAME's device function: 160, heading sensors (with class 40).
    var deviceFunction = 160
    /// The NAME's device instance (8 bits).
    var deviceInstance = 0
    /// The NAME's system instance (4 bits).
    var systemInstance = 0
    /// Seconds between heartbeats (126993): 60 on a boat.
    var heartbeat = 60.0
    /// The installation description (126998), at most 70 characters.
    var installationDescription = ""

    init() {}

    /// The keys of the table, with their checks.
    static let keys: [SettingKey] = [
        SettingKey(
            name: "outputs.nmea2000.interface", option: "--nmea2000", kind: .string, group: .nmea2000,
            field: .optionalParsed(\.nmea2000.interface, NMEA2000OutputSettings.Interface.init, \.description), valueName: "url",
            help: "Be a heading node on the NMEA 2000 bus: socketcan://INTERFACE (can0) or tcp://HOST:PORT?format=ydraw "
                + "(a Yacht Devices gateway in RAW mode). It claims an address, answers a plotter's requests and sends "
                + "127250 Vessel Heading, 127251, 127257 and 127258. serial:///dev/DEVICE?format=actisense sends the "
                + "data only, through an NGT-1.",
            file: "Be a heading node on the NMEA 2000 bus: \"socketcan://can0\" (the nmea2000-socketcan.conf drop-in), "
                + "\"tcp://HOST:1457?format=ydraw\" (a Yacht Devices gateway in RAW mode: lan-feed.conf), "
                + "\"serial:///dev/ttyUSB0?format=actisense\" (an NGT-1: data only, under its own NAME; "
                + "nmea2000-ngt1.conf), or \"\" for none. Its NAME's unique number and its address are kept in "
                + "$STATE_DIRECTORY/nmea2000-node.json.") { content in
            guard case .string(let text) = content, text.isEmpty || Interface(text) != nil else {
                return "must be \(Interface.forms), or \"\" for none"
            }
            return nil
        },
        SettingKey(
            name: "outputs.nmea2000.rate", option: "--nmea2000-rate", kind: .double, group: .nmea2000,
            field: .number(\.nmea2000.rate), valueName: "hz",
            help: "NMEA 2000: the most headings a second, 0.1 to 50.",
            file: "The most headings a second (127250 each), 0.1 to 50.") { DaemonSettings.number($0, in: 0.1...50, "from 0.1 to 50 Hz") },
        SettingKey(
            name: "outputs.nmea2000.manufacturer_code", option: "--nmea2000-manufacturer-code", kind: .integer, group: .nmea2000,
            field: .integer(\.nmea2000.manufacturerCode), valueName: "n",
            help: "NMEA 2000: the NAME's manufacturer code, 0 to 2047.",
            file: "The NAME: manufacturer code (2046: the NMEA2000 library's free code), device class and function "
                + "(40/160: heading sensors; 60/140: ownship attitude), device and system instances.", defaultNote: ", the NMEA2000 library's free code") { DaemonSettings.integer($0, in: 0...2047) },
        SettingKey(
            name: "outputs.nmea2000.device_class", option: "--nmea2000-device-class", kind: .integer, group: .nmea2000,
            field: .integer(\.nmea2000.deviceClass), valueName: "n",
            help: "NMEA 2000: the NAME's device class.",
            file: "", defaultNote: ", steering and control surfaces") { DaemonSettings.integer($0, in: 0...127) },
        SettingKey(
            name: "outputs.nmea2000.device_function", option: "--nmea2000-device-function", kind: .integer, group: .nmea2000,
            field: .integer(\.nmea2000.deviceFunction), valueName: "n",
            help: "NMEA 2000: the NAME's device function.",
            file: "", defaultNote: ", heading sensors") { DaemonSettings.integer($0, in: 0...255) },
        SettingKey(
            name: "outputs.nmea2000.device_instance", option: "--nmea2000-device-instance", kind: .integer, group: .nmea2000,
            field: .integer(\.nmea2000.deviceInstance), valueName: "n",
            help: "NMEA 2000: the NAME's device instance, 0 to 255.",
            file: "") { DaemonSettings.integer($0, in: 0...255) },
        SettingKey(
            name: "outputs.nmea2000.system_instance", option: "--nmea2000-system-instance", kind: .integer, group: .nmea2000,
            field: .integer(\.nmea2000.systemInstance), valueName: "n",
            help: "NMEA 2000: the NAME's system instance, 0 to 15.",
            file: "") { DaemonSettings.integer($0, in: 0...15) },
        SettingKey(
            name: "outputs.nmea2000.heartbeat", option: "--nmea2000-heartbeat", kind: .double, group: .nmea2000,
            field: .number(\.nmea2000.heartbeat), valueName: "seconds",
            help: "NMEA 2000: seconds between heartbeats (126993), 1 to 60.",
            file: "Seconds between heartbeats (126993), 1 to 60.") { DaemonSettings.number($0, in: 1...60, "from 1 to 60 seconds") },
        SettingKey(
            name: "outputs.nmea2000.description", option: "--nmea2000-description", kind: .string, group: .nmea2000,
            field: .text(\.nmea2000.installationDescription), valueName: "text",
            help: "NMEA 2000: the installation description a plotter shows (126998).",
            file: "What a plotter shows as the installation description (126998), at most 70 ASCII characters.") { content in
            guard case .string(let text) = content, text.unicodeScalars.count <= 70, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
            else { return "must be at most 70 printable ASCII characters" }
            return nil
        },
    ]
}
