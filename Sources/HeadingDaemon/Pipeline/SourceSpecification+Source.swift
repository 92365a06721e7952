// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import HeadingKitGPSD

extension SourceSpecification {
    /// The heading source this specification names, configured from `settings`.
    /// - Parameter settings: The effective settings (replay speed, simulation rate, …).
    /// - Returns: A source, not yet started.
    func makeSource(settings: DaemonSettings) -> any HeadingSource {
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
                    minimumCourseSpeed: settings.minimumCourseSpeed, requiresChecksum: settings.requiresChecksum
                )
            )
        case .gpsd(let endpoint):
            GPSDHeadingSource(
                configuration: .init(
                    endpoint: endpoint, minimumCourseSpeed: settings.minimumCourseSpeed, requiresChecksum: settings.requiresChecksum
                )
            )
        }
    }
}
