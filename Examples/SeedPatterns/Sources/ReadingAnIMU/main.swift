// headingd — examples: the DocC article ReadingAnIMU.md, copied by scripts/examples.
// Do not edit here: edit Sources/HeadingKit/Documentation.docc/ReadingAnIMU.md.
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

/// Stops the program when a result is not what the article says.
func check(_ condition: Bool, _ message: String) {
    guard condition else { print("ReadingAnIMU: \(message)"); exit(1) }
}

/// The angle from `a` to `b`, −180…180.
func difference(_ a: Double, _ b: Double) -> Double { (b - a + 540).truncatingRemainder(dividingBy: 360) - 180 }

// 1. A test tree: what the kernel shows for an HMC5883L and an accelerometer, level, pointing 60°.
let root = FileManager.default.temporaryDirectory.appendingPathComponent("reading-an-imu-\(getpid())")
defer { try? FileManager.default.removeItem(at: root) }

@MainActor func writeDevice(_ device: String, _ attributes: [String: String]) throws {
    let directory = root.appendingPathComponent(device)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, value) in attributes { try Data("\(value)\n".utf8).write(to: directory.appendingPathComponent(name)) }
}

/// The magnetometer's raw numbers for a level sensor at `heading`, with a boat's hard iron (µT) added.
@MainActor func writeMagnetometer(heading: Double, hardIron: Vector3 = .zero) throws {
    let horizontal = 19.0, down = 45.0                       // µT, about the English Channel's field
    let θ = heading * .pi / 180
    // Device frame: X right, Y forward, Z up. North lies at −θ from the bow; the field points down.
    let field = Vector3(x: -horizontal * sin(θ), y: horizontal * cos(θ), z: -down) + hardIron
    let scale = 0.000909                                     // gauss per count: 1 G = 100 µT
    func raw(_ microtesla: Double) -> String { String(Int((microtesla / 100 / scale).rounded())) }
    try writeDevice("iio:device0", [
        "name": "hmc5883l", "in_magn_scale": String(scale),
        "in_magn_x_raw": raw(field.x), "in_magn_y_raw": raw(field.y), "in_magn_z_raw": raw(field.z),
    ])
}

try writeMagnetometer(heading: 60)
try writeDevice("iio:device1", [                             // level: +1 g on Z
    "name": "lis3dh", "in_accel_scale": "0.009582",
    "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": String(Int((9.80665 / 0.009582).rounded())),
])

/// The first heading an IIO source gives, through a proxy, as an app reads one.
@MainActor func firstHeading(_ endpoint: IIOEndpoint) async -> (Heading, CalibrationStatus?) {
    let source = IIOHeadingSource(configuration: .init(endpoint: endpoint))
    let proxy = HeadingProxy(source: source)
    proxy.enable()
    defer { proxy.disable() }
    for await heading in proxy.headings() { return (heading, source.calibrationStatus) }
    fatalError("the headings ended")
}

let (level, status) = await firstHeading(IIOEndpoint(root: root.path))
print("level:", level.magneticHeading ?? .nan, "—", status.map(String.init(describing:)) ?? "no status")
check(abs(difference(level.magneticHeading ?? .nan, 60)) < 0.5, "the test tree should read 60°")

// 2. The boat's hard iron of 30, −20 and 10 µT on the sensor: a calibration written in code takes it out.
let hardIron = Vector3(x: 30, y: -20, z: 10)
try writeMagnetometer(heading: 60, hardIron: hardIron)
let (uncorrected, _) = await firstHeading(IIOEndpoint(root: root.path))
print("with the hard iron:", uncorrected.magneticHeading ?? .nan)

let calibration = MagnetometerCalibration(offset: hardIron, mode: .hardIron, fieldStrength: 49, device: "hmc5883l")
let file = root.appendingPathComponent("calibration-hmc5883l.json")
try calibration.encoded().write(to: file)
check((try? MagnetometerCalibration.read(Data(contentsOf: file)))?.offset == hardIron, "the file should read back")
let (corrected, calibrated) = await firstHeading(IIOEndpoint(root: root.path, calibration: file.path))
print("calibrated:", corrected.magneticHeading ?? .nan, "—", calibrated.map(String.init(describing:)) ?? "no status")
check(abs(difference(corrected.magneticHeading ?? .nan, 60)) < 0.5, "the calibrated heading should be 60°")

// 3. A deviation card from a turn at 2°/s, compass and reference logged at 1 Hz at the same moments.
let truth = DeviationCurve(a: 1, b: 3, c: -2, d: 0.5, e: -0.7)
var fitter = DeviationFitter()
for second in 0..<200 {
    let compass = Double(second * 2).truncatingRemainder(dividingBy: 360)
    fitter.addCompass(compass, at: Double(second))
    fitter.addReference(compass + truth.deviation(at: compass), at: Double(second))  // magnetic = compass + deviation
}
let fit = try fitter.fit()
let curve = fit.curve
print("deviation card:", fit)  // A 1.0° B 3.0° C -2.0° D 0.5° E -0.7° (RMS 0.00° over 200 pairs, …)
for (found, expected) in zip([curve.a, curve.b, curve.c, curve.d, curve.e], [truth.a, truth.b, truth.c, truth.d, truth.e]) {
    check(abs(found - expected) < 0.05, "the five coefficients should be found")
}

// Half a turn is not enough: the refusal names what is missing.
var half = DeviationFitter()
for second in 0..<90 {
    half.addCompass(Double(second * 2), at: Double(second))
    half.addReference(Double(second * 2), at: Double(second))
}
do { _ = try half.fit(); check(false, "half a turn should be refused") } catch { print("half a turn:", error) }

// 4. The card applied: the compass's 60° becomes 60° + its deviation there.
let table = try DeviationTable(curve.card().map { (heading: $0.heading, deviation: $0.deviation) })
let proxy = HeadingProxy(source: IIOHeadingSource(configuration: .init(endpoint: IIOEndpoint(root: root.path, calibration: file.path))))
let processor = HeadingProcessor(inputs: [(proxy: proxy, installation: HeadingProcessor.Installation(deviationTable: table))])
let headings = processor.headings()
processor.start()
proxy.enable()
for await heading in headings.prefix(1) {
    print("with the card:", heading.magneticHeading ?? .nan, "deviation", heading.deviation ?? .nan)
    check(abs(difference(heading.magneticHeading ?? .nan, 60 + truth.deviation(at: 60))) < 0.2, "the card should be applied")
}
proxy.disable()
processor.stop()
