// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import NMEA2000

/// What `headingd scan` heard at one candidate, and the heading sources it found there. Codable:
/// `--json` writes it as it is (its keys are part of headingd's interface).
struct ScanFinding: Sendable, Codable, Equatable {
    /// What came of listening.
    enum Outcome: String, Sendable, Codable {
        /// Something recognisable was heard (sentences, CAN frames, gpsd reports, an IIO device read).
        case heard
        /// It opened, and nothing recognisable came.
        case silent
        /// It could not be opened or reached (no such device, nothing listening, in use).
        case unavailable
        /// This user may not open it.
        case permissionDenied
    }

    /// The candidate, as a source URL.
    var candidate: String
    /// What came of listening.
    var outcome: Outcome
    /// Why it could not be heard, where it could not.
    var problem: String?
    /// How to mend ``problem``, where something can be done (the `dialout` group, a drop-in).
    var fix: String?
    /// How the bytes were read: `nmea0183`, `actisense`, `ydraw`, `candump`, `socketcan`, `gpsd`, `iio`.
    var format: String?
    /// The serial line's rate, where one was found.
    var baud: Int?
    /// Seconds listened.
    var seconds: Double
    /// NMEA 0183 sentences heard, by address (`HEHDT`).
    var sentences: [String: Int] = [:]
    /// NMEA 2000 devices heard.
    var devices: [Device] = []
    /// gpsd's devices and what each reported.
    var gpsdDevices: [GPSDDevice] = []
    /// The IIO devices, where the candidate is one.
    var iio: IIO?
    /// Lines that were not sentences or frames (noise at a wrong rate, a bad checksum).
    var unreadable = 0
    /// The heading sources found here, best first.
    var sources: [ScanSource] = []

    /// An NMEA 2000 device as heard.
    struct Device: Sendable, Codable, Equatable {
        /// Its source address.
        var address: Int
        /// Its NAME as `0x…`, where a claim was heard.
        var name: String?
        /// The manufacturer code in its NAME.
        var manufacturerCode: Int?
        /// Its device class and function (NMEA 2000's codes), from its NAME.
        var deviceClass: Int?
        /// Its device function.
        var deviceFunction: Int?
        /// Its model, from Product Information (126996), where heard.
        var model: String?
        /// Messages heard, by PGN (as text, for JSON).
        var pgns: [String: Int]
    }

    /// One device gpsd has, and what it reported.
    struct GPSDDevice: Sendable, Codable, Equatable {
        /// Its path.
        var path: String
        /// gpsd's driver for it, where listed.
        var driver: String?
        /// `ATT` reports with a heading (and `TPV` reports with a moving-base receiver's `relH`).
        var headings: Int
        /// `TPV` reports with a course.
        var courses: Int
        /// The kind of those headings, as gpsd's reports and the decoder tell it.
        var kind: ScanSource.Kind?
    }

    /// A magnetometer and what is beside it.
    struct IIO: Sendable, Codable, Equatable {
        /// The magnetometer (`iio:device0 (hmc5883l)`).
        var magnetometer: String
        /// The accelerometer beside it.
        var accelerometer: String?
        /// The gyroscope beside it.
        var gyroscope: String?
        /// The field's strength read, in µT (the kernel's gauss × 100), uncorrected.
        var fieldMicrotesla: Double?
        /// The calibration file the source would read.
        var calibrationFile: String
        /// Whether it is there and can be applied.
        var calibrated: Bool
        /// What the calibration says (its fit), or why it cannot be applied.
        var calibration: String?
    }

    /// Sentences of a summary for people, one a line: what was heard.
    var heardLines: [String] {
        var lines: [String] = []
        if !sentences.isEmpty {
            lines.append(sentences.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
        }
        // The devices that bear on a heading in full; the rest of a busy bus in one line.
        let bearing: Set<String> = ["127250", "127251", "127257", "129025", "129026"]
        let others = devices.filter { bearing.isDisjoint(with: $0.pgns.keys) }
        for device in devices where !bearing.isDisjoint(with: device.pgns.keys) {
            var text = "NMEA 2000 address \(device.address)"
            if let model = device.model { text += " \"\(model)\"" }
            if let name = device.name { text += " NAME \(name)" }
            if let manufacturer = device.manufacturerCode { text += " (manufacturer \(manufacturer), class \(device.deviceClass ?? 0), function \(device.deviceFunction ?? 0))" }
            let pgns = device.pgns.sorted { (Int($0.key) ?? 0) < (Int($1.key) ?? 0) }.map { "\($0.key) ×\($0.value)" }
            lines.append(text + ": PGN " + pgns.joined(separator: ", "))
        }
        if !others.isEmpty {
            lines.append("\(others.count) more NMEA 2000 device\(others.count == 1 ? "" : "s") with no heading, course or attitude: address\(others.count == 1 ? "" : "es") "
                + others.map { String($0.address) }.joined(separator: ", ") + " (--json lists them)")
        }
        for device in gpsdDevices {
            var text = "gpsd device \(device.path)"
            if let driver = device.driver { text += " (\(driver))" }
            text += ": \(device.headings) ATT headings, \(device.courses) TPV courses"
            lines.append(text)
        }
        if let iio {
            var text = "magnetometer \(iio.magnetometer)"
            text += iio.accelerometer.map { ", accelerometer \($0)" } ?? ", no accelerometer beside it"
            text += iio.gyroscope.map { ", gyroscope \($0)" } ?? ", no gyroscope"
            if let field = iio.fieldMicrotesla { text += String(format: "; field %.1f µT uncorrected", field) }
            lines.append(text)
            lines.append(iio.calibrated
                ? "calibration \(iio.calibrationFile): \(iio.calibration ?? "found")"
                : "no calibration (\(iio.calibration ?? "no \(iio.calibrationFile)")): headingd calibrate '\(candidate)' makes one")
        }
        if unreadable > 0 { lines.append("\(unreadable) unreadable line\(unreadable == 1 ? "" : "s")") }
        return lines
    }
}
