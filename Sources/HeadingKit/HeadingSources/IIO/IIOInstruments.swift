// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// The devices an endpoint names, found and their channels opened: the magnetometer, and the
/// accelerometer and gyroscope beside it when there are. The one opening of an IIO compass, for
/// the source, `headingd calibrate` and `headingd scan` alike.
package struct IIOInstruments {
    /// Which devices were chosen.
    package let choice: IIODeviceChoice
    /// The magnetometer's channels.
    package let magnetometer: IIOChannels
    /// The accelerometer's, if there is one.
    package let accelerometer: IIOChannels?
    /// The gyroscope's, if there is one and it was asked for.
    package let gyroscope: IIOChannels?

    /// Finds the devices and opens their channels.
    /// - Parameters:
    ///   - endpoint: What to look for, and where.
    ///   - gyroscope: Whether the gyroscope is opened too (a calibration has no use for it).
    ///   - watch: Told which attribute each read is reading, so that one that never answers can be named.
    /// - Throws: ``IIOFailure``: what is missing or cannot be read, with the system's reason.
    package init(endpoint: IIOEndpoint, gyroscope: Bool = true, watch: IIOReadWatch? = nil) throws(IIOFailure) {
        choice = try IIODeviceChoice(endpoint: endpoint)
        magnetometer = try IIOChannels(device: choice.magnetometer, type: .magnetometer)
        accelerometer = try choice.accelerometer.map { device throws(IIOFailure) in try IIOChannels(device: device, type: .accelerometer) }
        self.gyroscope = gyroscope
            ? try choice.gyroscope.map { device throws(IIOFailure) in try IIOChannels(device: device, type: .gyroscope) }
            : nil
        for channels in [magnetometer, accelerometer, self.gyroscope].compactMap({ $0 }) { channels.watch = watch }
    }

    /// The devices opened, the magnetometer first.
    package var devices: [IIODevice] { [magnetometer, accelerometer, gyroscope].compactMap { $0?.device } }
}
