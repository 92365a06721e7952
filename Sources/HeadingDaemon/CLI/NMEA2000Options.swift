// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Configuration

/// The options of the NMEA 2000 output (`[outputs.nmea2000]`).
struct NMEA2000Options: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Be a heading node on the NMEA 2000 bus: socketcan://INTERFACE (can0) or tcp://HOST:PORT?format=ydraw (a Yacht "
                + "Devices gateway in RAW mode). It claims an address, answers a plotter's requests and sends 127250 Vessel Heading, "
                + "127251, 127257 and 127258. serial:///dev/DEVICE?format=actisense sends the data only, through an NGT-1. (default: none)",
            valueName: "url"
        )
    )
    var nmea2000: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("NMEA 2000: the most headings a second, 0.1 to 50. (default: 10)", valueName: "hz"))
    var nmea2000Rate: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("NMEA 2000: the NAME's manufacturer code, 0 to 2047. (default: 2046, the NMEA2000 library's free code)", valueName: "n")
    )
    var nmea2000ManufacturerCode: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("NMEA 2000: the NAME's device class. (default: 40, steering and control surfaces)", valueName: "n"))
    var nmea2000DeviceClass: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("NMEA 2000: the NAME's device function. (default: 160, heading sensors)", valueName: "n"))
    var nmea2000DeviceFunction: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("NMEA 2000: the NAME's device instance, 0 to 255. (default: 0)", valueName: "n"))
    var nmea2000DeviceInstance: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("NMEA 2000: the NAME's system instance, 0 to 15. (default: 0)", valueName: "n"))
    var nmea2000SystemInstance: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("NMEA 2000: seconds between heartbeats (126993), 1 to 60. (default: 60)", valueName: "seconds"))
    var nmea2000Heartbeat: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("NMEA 2000: the installation description a plotter shows (126998). (default: none)", valueName: "text"))
    var nmea2000Description: String?

    /// The options given, by configuration key.
    var settings: [String: ConfigContent] {
        optionSettings([
            "outputs.nmea2000.interface": nmea2000.map(ConfigContent.string),
            "outputs.nmea2000.rate": nmea2000Rate.map(ConfigContent.double),
            "outputs.nmea2000.manufacturer_code": nmea2000ManufacturerCode.map(ConfigContent.int),
            "outputs.nmea2000.device_class": nmea2000DeviceClass.map(ConfigContent.int),
            "outputs.nmea2000.device_function": nmea2000DeviceFunction.map(ConfigContent.int),
            "outputs.nmea2000.device_instance": nmea2000DeviceInstance.map(ConfigContent.int),
            "outputs.nmea2000.system_instance": nmea2000SystemInstance.map(ConfigContent.int),
            "outputs.nmea2000.heartbeat": nmea2000Heartbeat.map(ConfigContent.double),
            "outputs.nmea2000.description": nmea2000Description.map(ConfigContent.string),
        ])
    }
}
