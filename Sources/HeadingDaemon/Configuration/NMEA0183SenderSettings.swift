// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingOutputs

/// What one NMEA 0183 output writes, and how often: the `sentences`, `talker` and `rate` keys of
/// its table (`outputs.nmea0183.tcp`, `.udp`, `.serial`), the same three for every output.
struct NMEA0183SenderSettings: Sendable, Equatable {
    /// The sentences written for each heading.
    var sentences: [NMEA0183Encoder.Sentence] = [.hdt, .hdg, .ths]
    /// The talker.
    var talker = "II"
    /// The maximum rate in Hz; 0 sends every heading.
    var rate: Double

    /// The defaults of one output's table.
    init(rate: Double = 10) {
        self.rate = rate
    }

    /// The sender these settings give.
    var configuration: NMEA0183Sender.Configuration {
        // The talker was checked by the settings' schema.
        NMEA0183Sender.Configuration(sentences: sentences, encoder: NMEA0183Encoder(talker: talker) ?? NMEA0183Encoder()!, maximumHertz: rate)
    }
}
