// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD
import Logging

extension SourceSpecification {
    /// The heading source this specification names, configured from `settings`.
    /// - Parameters:
    ///   - settings: The effective settings (replay speed, simulation rate, …).
    ///   - feeds: The NMEA 0183 feeds made so far, by endpoint: sources on one endpoint share its
    ///     feed (it is read once), and a new endpoint's feed is added.
    ///   - buses: The process's NMEA 2000 buses: a feed of one knows this process's node there.
    ///   - logger: Where a feed logs opening, losing and reopening its transport.
    /// - Returns: A source, not yet started.
    func makeSource(
        settings: DaemonSettings, feeds: inout [NMEAStreamEndpoint: NMEAFeed], buses: NMEA2000Buses = NMEA2000Buses(), logger: Logger
    ) -> any HeadingSource {
        switch kind {
        case .simulation:
            SimulatedHeadingSource(
                configuration: HeadingSimulation.Configuration(
                    seed: settings.seed,
                    rate: settings.rate,
                    dropoutInterval: settings.dropoutInterval == 0 ? nil : settings.dropoutInterval,
                    dropoutDuration: settings.dropoutDuration
                )
            )
        case .replay(let path):
            ReplayHeadingSource(
                configuration: .init(
                    path: path, speed: settings.replaySpeed.speed, loops: settings.replayLoops, untimedRate: settings.rate,
                    minimumCourseSpeed: settings.minimumCourseSpeed,
                    sourceName: selection.description.isEmpty ? nil : "replay:\(path)?\(selection)", requiresChecksum: settings.requiresChecksum,
                    selection: selection
                )
            )
        case .gpsd(let endpoint):
            GPSDHeadingSource(
                configuration: .init(
                    endpoint: endpoint, minimumCourseSpeed: settings.minimumCourseSpeed, requiresChecksum: settings.requiresChecksum,
                    silenceTimeout: .milliseconds(Int((settings.staleAfter * 1000).rounded()))
                )
            )
        case .iio(let endpoint):
            IIOHeadingSource(
                configuration: .init(
                    endpoint: endpoint, sourceName: description, logger: logger,
                    calibrationDirectory: StateDirectory.process.calibrations
                )
            )
        case .stream(let endpoint, let selection):
            StreamHeadingSource(
                feed: Self.feed(for: endpoint, in: &feeds, buses: buses, logger: logger),
                configuration: .init(
                    selection: selection, minimumCourseSpeed: settings.minimumCourseSpeed, requiresChecksum: settings.requiresChecksum,
                    silenceTimeout: .milliseconds(Int((settings.staleAfter * 1000).rounded()))
                )
            )
        }
    }

    /// The feed of `endpoint`: the one made for an earlier source, or a new one.
    private static func feed(
        for endpoint: NMEAStreamEndpoint, in feeds: inout [NMEAStreamEndpoint: NMEAFeed], buses: NMEA2000Buses, logger: Logger
    ) -> NMEAFeed {
        if let feed = feeds[endpoint] { return feed }
        var configuration = NMEAFeed.Configuration(endpoint: endpoint, logger: logger)
        configuration.localNode = buses.node(readBy: endpoint)
        let feed = NMEAFeed(configuration: configuration)
        feeds[endpoint] = feed
        return feed
    }
}
