// headingd
// SPDX-License-Identifier: Apache-2.0

/// Why a listening output could not start: its address cannot be listened on (in use, not an
/// address of this machine, an unknown host). One type for every listener (NMEA 0183 TCP, Signal K,
/// metrics), each naming itself.
struct ListenError: OutputOpenError {
    /// The output, as the message names it (`Signal K output`).
    let output: String
    /// The address it was to listen on.
    let address: ListenAddress
    /// The system's reason.
    let reason: String

    var description: String { "\(output): cannot listen on \(address): \(reason)" }
}
