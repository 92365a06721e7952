// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKitTesting
import Testing

/// `--source iio:` on a fake sysfs tree (`root=`): the magnetometer's heading, made true by the
/// World Magnetic Model's variation as every magnetic source's is. (The real kernel's drivers on
/// i2c-stub: scripts/vm/iio-test; calibration: HeadingdCalibrateTests.)
@Suite(.processSlot, .timeLimit(.minutes(20)))
struct HeadingdIIOTests {
    @Test func anIIOMagnetometerIsAMagneticSourceMadeTrueByTheModel() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-iio-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let device = root.appendingPathComponent("iio:device0")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        // Level, pointing 90° magnetic (east): the horizontal field comes from the left (-X), the vertical one points down.
        for (name, value) in ["name": "hmc5883l", "in_magn_scale": "0.001", "in_magn_x_raw": "-190", "in_magn_y_raw": "0", "in_magn_z_raw": "-450"] {
            try Data((value + "\n").utf8).write(to: device.appendingPathComponent(name))
        }
        let daemon = try await DaemonProcess.run([
            "--source", "iio:?root=\(root.path)&rate=20", "--format", "json", "--count", "3", "--position", "50.8,-1.3",
        ])
        #expect(daemon.terminationStatus == 0, "\(daemon.errors)")
        let headings = HeadingdStreamSourceTests.headings(daemon)
        #expect(headings.count == 3, "\(daemon.output)")
        let first = try #require(headings.first)
        #expect((first["magneticHeading"] as? Double).map { abs($0 - 90) < 1e-6 } == true, "\(first)")
        #expect(first["kind"] as? String == "compass" && first["source"] as? String == "iio:?root=\(root.path)&rate=20", "\(first)")
        // True from the model's variation at the position (the Solent: about 1° W in 2026).
        let variation = try #require(first["magneticVariation"] as? Double)
        #expect(abs(variation) < 5 && first["variationOrigin"] as? String == "model", "\(first)")
        #expect(abs(((first["trueHeading"] as? Double) ?? 0) - (90 + variation)) < 1e-6, "\(first)")
        #expect(daemon.errors.contains("uncalibrated: iio:device0 (hmc5883l) has no calibration"), "\(daemon.errors)")
        #expect(daemon.errors.contains("no accelerometer beside it, so it is taken to be level"), "\(daemon.errors)")

        let refused = try await DaemonProcess.run(["--source", "iio:?rate=0"])
        #expect(refused.terminationStatus == 78 && refused.errors.contains("is not an IIO source: rate must be between 0.1 and 200"), "\(refused.errors)")
    }
}
