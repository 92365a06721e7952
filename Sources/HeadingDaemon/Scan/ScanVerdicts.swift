// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD
import NMEA2000

/// From what was heard to heading sources: each with its kind and the exact `--source` URL —
/// `talker=` (or `sentences=`) where one NMEA 0183 feed carries several instruments, `device=`
/// where one bus carries several devices. Pure.
enum ScanVerdicts {
    /// NMEA 2000's device function "Ownship Position (GNSS)" (class 60, navigation): a true
    /// heading from such a device is a GNSS compass's; from any other device that claims a NAME
    /// (a heading sensor, class 40 function 160; an attitude unit, class 60 function 140) a
    /// gyro's. Without a claim heard it is taken for a GNSS compass's, as headingd's reader does.
    static let ownshipPosition: UInt8 = 145

    /// Copies a survey's sentences, devices and unreadable lines into a finding.
    static func describe(_ survey: FeedSurvey, into finding: inout ScanFinding) {
        finding.sentences = survey.sentences
        if survey.otherSentences > 0 { finding.sentences["(others)"] = survey.otherSentences }
        finding.unreadable = survey.unreadable
        finding.devices = survey.devices.values.sorted { $0.address < $1.address }.map { device in
            var pgns = Dictionary(uniqueKeysWithValues: device.pgns.map { (String($0.key), $0.value) })
            if device.otherMessages > 0 { pgns["(others)"] = device.otherMessages }
            return ScanFinding.Device(
                address: Int(device.address), name: device.name.map { String(format: "0x%016llX", $0.rawValue) },
                manufacturerCode: device.name.map { Int($0.manufacturerCode) }, deviceClass: device.name.map { Int($0.deviceClass) },
                deviceFunction: device.name.map { Int($0.deviceFunction) }, model: device.model, pgns: pgns)
        }
    }

    /// The heading sources of a feed.
    /// - Parameters:
    ///   - base: The feed as found (its rate and framing).
    ///   - survey: What was heard.
    ///   - seconds: How long it was listened to.
    static func sources(base: NMEAStreamEndpoint, survey: FeedSurvey, seconds: Double) -> [ScanSource] {
        let url = base.description
        let dropIn: String? = switch base.transport {
        case .serial: base.framing == .actisense ? "nmea2000-ngt1.conf" : "serial-input.conf"
        case .tcp, .udp: "lan-feed.conf"
        case .socketCAN: "nmea2000-socketcan.conf"
        case .standardInput, .childProcess: nil
        }
        func joined(_ selection: String?) -> String {
            guard let selection else { return url }
            return url + (url.contains("?") ? "&" : "?") + selection
        }
        var sources: [ScanSource] = []
        // NMEA 0183: one group per talker (or proprietary address) and kind.
        struct Group: Hashable { var talker: String?; var proprietary: String?; var kind: ScanSource.Kind }
        var groups: [Group: (count: Int, types: Set<String>)] = [:]
        // Each address's headings, counted here too: under a flood the sentence table may have filled
        // with other addresses first, and a source heard must never be said "×0".
        var headingCounts: [String: Int] = [:]
        for (origin, count) in survey.headings {
            let group = Group(talker: origin.talker, proprietary: origin.proprietary, kind: ScanSource.Kind(origin.kind))
            let type = origin.proprietary ?? origin.type
            groups[group, default: (0, [])].count += count
            groups[group, default: (0, [])].types.insert(type)
            headingCounts[origin.proprietary ?? ((origin.talker ?? "") + origin.type), default: 0] += count
        }
        let talkerGroups = Dictionary(grouping: groups.keys.compactMap(\.talker), by: { $0 }).mapValues(\.count)
        for (group, value) in groups.sorted(by: { ($0.key.kind, $0.key.talker ?? $0.key.proprietary ?? "") < ($1.key.kind, $1.key.talker ?? $1.key.proprietary ?? "") }) {
            let types = value.types.sorted()
            let selection: String? = if groups.count == 1 {
                nil
            } else if let proprietary = group.proprietary {
                "sentences=\(proprietary)"
            } else if let talker = group.talker, talkerGroups[talker] == 1 {
                "talker=\(talker)"
            } else {
                "talker=\(group.talker ?? "")&sentences=\(types.joined(separator: ","))"
            }
            let heard = types.map { type in
                let address = group.proprietary ?? ((group.talker ?? "") + type)
                return "\(address) ×\(max(survey.sentences[address] ?? 0, headingCounts[address] ?? 0))"
            }.joined(separator: ", ")
            sources.append(ScanSource(url: joined(selection), kind: group.kind, heard: heard, rate: Double(value.count) / seconds, dropIn: dropIn))
        }
        // NMEA 2000: each device sending Vessel Heading (127250) or, without one, course over ground (129026).
        let devices = survey.devices.values.filter { $0.trueHeadings + $0.magneticHeadings + $0.courses > 0 }.sorted { $0.address < $1.address }
        for device in devices {
            let kind: ScanSource.Kind
            let count: Int
            if device.trueHeadings + device.magneticHeadings > 0 {
                count = device.trueHeadings + device.magneticHeadings
                if device.magneticHeadings > device.trueHeadings {
                    kind = .fluxgate
                } else {
                    kind = device.name.map { !($0.deviceClass == 60 && $0.deviceFunction == ownshipPosition) } == true ? .gyro : .gnssCompass
                }
            } else {
                count = device.courses
                kind = .courseOverGround
            }
            let selection: String? = devices.count == 1 && kind != .courseOverGround
                ? nil
                : "device=" + (device.name.map { String(format: "0x%016llX", $0.rawValue) } ?? String(device.address))
            var heard = "address \(device.address)"
            if let model = device.model { heard += " \"\(model)\"" }
            heard += kind == .courseOverGround ? ": 129026 ×\(count)" : ": 127250 ×\(count) (\(device.magneticHeadings > device.trueHeadings ? "magnetic" : "true"))"
            if device.name == nil { heard += "; no address claim heard, so chosen by address (an address may change at power-up)" }
            sources.append(ScanSource(url: joined(selection), kind: kind, heard: heard, rate: Double(count) / seconds, dropIn: dropIn))
        }
        return sources.sorted { $0.kind < $1.kind }
    }

    /// The heading sources of a gpsd: each device with headings (and course over ground for one
    /// with courses only), named by path where gpsd has several.
    static func sources(gpsd endpoint: GPSDEndpoint, devices: [ScanFinding.GPSDDevice], seconds: Double) -> [ScanSource] {
        let reporting = devices.filter { $0.headings + $0.courses > 0 }
        var base = endpoint
        base.device = nil
        return reporting.map { device in
            let kind = device.headings > 0 ? device.kind ?? .gnssCompass : .courseOverGround
            var url = base.description
            if reporting.count > 1 || endpoint.device != nil { url += device.path.hasPrefix("/") ? device.path : "/" + device.path }
            let heard = "\(device.path)\(device.driver.map { " (\($0))" } ?? ""): "
                + (device.headings > 0 ? "ATT ×\(device.headings)" : "TPV courses ×\(device.courses)")
            return ScanSource(url: url, kind: kind, heard: heard, rate: Double(max(device.headings, device.courses)) / seconds, dropIn: nil)
        }.sorted { $0.kind < $1.kind }
    }

    /// The heading source of a magnetometer through IIO.
    static func sources(iio endpoint: IIOEndpoint, heard: ScanFinding.IIO, devices: IIODeviceChoice) -> [ScanSource] {
        var text = heard.magnetometer
        text += heard.accelerometer.map { " with \($0)" } ?? " (no accelerometer: taken to be level)"
        if let gyroscope = heard.gyroscope { text += " and \(gyroscope)" }
        text += heard.calibrated ? "; calibrated" : "; not calibrated yet (headingd calibrate)"
        return [ScanSource(url: endpoint.description, kind: .imu, heard: text, rate: endpoint.rate, dropIn: nil)]
    }
}
