// headingd — libFuzzer target: what an IIO source reads from sysfs, and the sums it does on it.
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

/// The input's first byte chooses how the rest is read:
/// - as an attribute's content: a number (finite, or refused), a mount matrix (finite, or refused)
///   and a buffer's scan type (refused, or values read from the same bytes within its bits);
/// - as an `iio:` URL: parsed or refused with a reason, never a trap; an orientation that parses is a rotation;
/// - as six numbers (field and acceleration, each from 8 bytes): tilt compensation gives a heading
///   on the circle and pitch and roll within ±90° and ±180°, or says why it cannot; and the
///   disturbance watch judges the sample (twice: the second after the start) without a trap;
/// - as a calibration file: read and checked (finite, symmetric, bounded) or refused, and what
///   it corrects stays finite.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIIO(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data + 1, count: size - 1)
    switch data[0] % 4 {
    case 0:
        if let value = IIOValue.parse(bytes) { precondition(value.isFinite, "a number that is not finite: \(value)") }
        if let matrix = IIOValue.matrix(bytes) { precondition(matrix.isFinite, "a matrix that is not finite") }
        if let type = try? IIOScanType(parsing: bytes) {
            precondition([8, 16, 32, 64].contains(type.storageBits) && type.bits + type.shift <= type.storageBits, "type \(type)")
            if let values = type.values(in: bytes, at: 0) {
                precondition(values.count == type.repeats, "\(values.count) values of \(type.repeats)")
                for value in values where type.bits < 64 {
                    // Within its bits: all above them copies of the sign (signed), or none (unsigned).
                    let above = type.isSigned ? value >> (type.bits - 1) : value >> type.bits
                    precondition(above == 0 || (type.isSigned && above == -1), "\(value) from \(type)")
                }
            }
        }
    case 1:
        if let endpoint = try? IIOEndpoint(parsing: String(decoding: bytes, as: UTF8.self)) {
            precondition(endpoint.rate.isFinite && endpoint.rate > 0, "rate \(endpoint.rate)")
            precondition(endpoint.orientation.isOrthonormal() && abs(endpoint.orientation.determinant - 1) < 1e-3, "orientation \(endpoint.orientation)")
        }
    case 3:
        if let calibration = try? MagnetometerCalibration.read(Data(bytes)) {
            precondition(calibration.problem == nil, "a calibration read with a problem")
            let corrected = calibration.corrected(Vector3(x: 20, y: -5, z: -45))
            precondition(corrected.isFinite, "a correction that is not finite: \(corrected)")
        }
    default:
        var values: [Double] = []
        var offset = 0
        while values.count < 6 {
            var raw: UInt64 = 0
            for index in 0..<8 where offset + index < bytes.count { raw |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            offset += 8
            values.append(Double(bitPattern: raw))
        }
        let field = Vector3(x: values[0], y: values[1], z: values[2])
        let acceleration = Vector3(x: values[3], y: values[4], z: values[5])
        if let attitude = try? TiltCompensation.attitude(field: field, acceleration: acceleration) {
            precondition(attitude.heading >= 0 && attitude.heading < 360, "heading \(attitude.heading)")
            precondition(abs(attitude.pitch) <= 90 && abs(attitude.roll) <= 180, "pitch \(attitude.pitch), roll \(attitude.roll)")
        }
        var detector = MagneticDisturbanceDetector(
            calibration: MagnetometerCalibration(offset: .zero, mode: .ellipsoid, fieldStrength: 49, inclination: 66))
        _ = detector.assess(field: field, acceleration: acceleration, gyroDisagreement: values[0], at: 0)
        _ = detector.assess(field: field, acceleration: acceleration, gyroDisagreement: values[1], at: 3)
    }
    return 0
}
