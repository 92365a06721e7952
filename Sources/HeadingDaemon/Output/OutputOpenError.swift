// headingd
// SPDX-License-Identifier: Apache-2.0

/// An output that could not be opened before the pipeline ran (an address in use, an unknown
/// host): headingd says so, naming the address, and exits ``ExitStatus/outputUnavailable``.
protocol OutputOpenError: Error, CustomStringConvertible {}

extension NMEA0183UDPOutput.OpenError: OutputOpenError {}
