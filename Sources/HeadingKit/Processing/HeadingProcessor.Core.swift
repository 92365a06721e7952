// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension HeadingProcessor {
    /// The processor's decisions, with no clock, lock or threads: events and ticks in, events out.
    /// Time is a `Duration` since the processor began, so tests state it exactly.
    struct Core: Sendable {
        /// Where one source stands.
        enum Health: Sendable, Equatable {
            /// No heading yet, and no fault.
            case awaitingFirst
            /// Delivering without a break since `since`; its last heading came at `lastHeadingAt`.
            case healthy(since: Duration, lastHeadingAt: Duration)
            /// Stale or faulted since its last heading (at `lastHeadingAt`, if any): its next heading is a recovery.
            case impaired(lastHeadingAt: Duration?)

            /// Whether it is delivering.
            var isHealthy: Bool {
                if case .healthy = self { return true }
                return false
            }

            /// When its last heading came, if it has sent one.
            var lastHeadingAt: Duration? {
                switch self {
                case .awaitingFirst: nil
                case .healthy(_, let last): last
                case .impaired(let last): last
                }
            }

            /// Since when it has been healthy without a break, while it is.
            var healthySince: Duration? {
                if case .healthy(let since, _) = self { return since }
                return nil
            }
        }

        /// What the processor knows of one source.
        struct SourceState: Sendable {
            let name: String
            /// Where it stands.
            var health = Health.awaitingFirst
            /// Deviation, true ↔ magnetic, offset and smoothing for its headings.
            var correction: HeadingCorrection
            /// Its last processed heading, for disagreement.
            var lastHeading: Heading?
            /// The model's zone of the horizontal field last announced for it (a magnetic source), if any.
            var magneticZone: WorldMagneticModel.Field.Zone?

            init(name: String, installation: Installation) {
                self.name = name
                correction = HeadingCorrection(installation: installation)
            }
        }

        /// Faults after which a source delivers nothing: it is no longer healthy.
        static let impairingFaults: Set<HeadingFault.Code> = [
            .sourceUnavailable, .deviceLost, .stale, .permissionDenied, .calibrationNeeded, .unsupportedInput,
        ]

        let configuration: Configuration
        private(set) var sources: [SourceState]
        /// The source whose headings are delivered.
        private(set) var active: Int?
        /// The last position any source reported.
        private var lastPosition: GeographicPosition?
        private var hasWarnedOfModelAge = false
        /// Whether the fault for a date too far from the model's years has been raised.
        private var hasWarnedOfModelRange = false
        /// The heading filter, over the active source's headings.
        private var filter: HeadingFilter
        /// The model's last answer: the same place on the same UTC day gives the same variation to
        /// far better than a sensor's resolution (WMM2025 drifts ≈ 0.2° a year at most), so a
        /// flat-out replay does not evaluate the model for every heading.
        private var modelCache: (position: GeographicPosition, day: Double, variation: Double, zone: WorldMagneticModel.Field.Zone)?
        /// Since when each other source has disagreed with the active one, and whether the fault is out.
        private var disagreements: [Int: (since: Duration, isRaised: Bool)] = [:]

        init(sources: [(name: String, installation: Installation)], configuration: Configuration) {
            self.configuration = configuration
            self.sources = sources.map { SourceState(name: $0.name, installation: $0.installation) }
            filter = HeadingFilter(minimumChange: configuration.headingFilter)
        }

        /// Replaces source `index`'s deviation card.
        mutating func setDeviationTable(_ table: DeviationTable?, forSourceAt index: Int) {
            guard sources.indices.contains(index) else { return }
            sources[index].correction.setDeviationTable(table)
        }

        /// The name of the source whose headings are delivered, if any has delivered yet.
        var activeSourceName: String? { active.map { sources[$0].name } }

        // MARK: Events

        /// Handles one event from source `index`; returns what to deliver, in order.
        mutating func receive(_ event: HeadingEvent, from index: Int, at now: Duration) -> [HeadingEvent] {
            var output: [HeadingEvent] = []
            receive(event, from: index, at: now, into: &output)
            return output
        }

        /// Handles a batch of events from source `index`, in order; appends what to deliver to
        /// `output`. One call for the batch: the processor's core and output are class properties,
        /// and every access to one is checked for exclusivity at run time.
        mutating func receive(contentsOf events: [HeadingEvent], from index: Int, at now: Duration, into output: inout [HeadingEvent]) {
            for event in events { receive(event, from: index, at: now, into: &output) }
        }

        /// Handles one event from source `index`; appends what to deliver, in order, to `output`
        /// (which the processor reuses from event to event: no array made per heading).
        mutating func receive(_ event: HeadingEvent, from index: Int, at now: Duration, into output: inout [HeadingEvent]) {
            switch event {
            case .heading(let heading): receive(heading, from: index, at: now, into: &output)
            case .fault(let fault): output += receive(fault, from: index, at: now)
            case .authorizationChanged, .notice: output.append(event)
            }
        }

        private mutating func receive(_ raw: Heading, from index: Int, at now: Duration, into output: inout [HeadingEvent]) {
            if let position = raw.position { lastPosition = position }
            let needsModelVariation = HeadingCorrection.needsModelVariation(raw)
            // A magnetic heading is looked up in the model even when it brings its own variation: for the zone.
            let modelVariation = needsModelVariation || raw.magneticHeading != nil ? modelVariation(for: raw, warnings: &output) : nil
            if raw.magneticHeading != nil, let zone = modelCache?.zone, zone != sources[index].magneticZone ?? .normal {
                announce(zone, for: index, at: raw.timestamp, into: &output)
            }
            let heading = sources[index].correction.apply(to: raw, modelVariation: needsModelVariation ? modelVariation : nil, lastPosition: lastPosition)
            // In place: a copy of the source's state (a heading inside) twice per heading showed in profiles.
            let isFirstHeading = sources[index].health.lastHeadingAt == nil
            switch sources[index].health {
            case .impaired:
                output.append(
                    .notice(
                        HeadingNotice(code: .recovered, source: sources[index].name, reason: "headings again", timestamp: heading.timestamp)
                    )
                )
                sources[index].health = .healthy(since: now, lastHeadingAt: now)
            case .awaitingFirst:
                sources[index].health = .healthy(since: now, lastHeadingAt: now)
            case .healthy(let since, _):
                sources[index].health = .healthy(since: since, lastHeadingAt: now)
            }
            sources[index].lastHeading = heading

            if active == nil {
                active = index
            } else if let current = active, index < current, isFirstHeading, now < configuration.staleAfter {
                // Starting up: every source has one stale period to report, and the best one wins at once.
                output += switchTo(index, reason: "starting up: \(sources[index].name) ranks above \(sources[current].name)", isStartUp: true, at: now)
            } else if let current = active, current != index, !sources[current].health.isHealthy {
                // The active source is down: the best healthy one takes over at once.
                output += switchTo(bestHealthy() ?? index, reason: "\(sources[current].name) is not delivering", at: now)
            }
            output += failBackIfDue(at: now)
            if index == active, filter.admits(heading) { output.append(.heading(heading)) }
            output += checkDisagreement(at: now)
        }

        private mutating func receive(_ fault: HeadingFault, from index: Int, at now: Duration) -> [HeadingEvent] {
            var output: [HeadingEvent] = [.fault(fault)]
            guard Self.impairingFaults.contains(fault.code) else { return output }
            impair(index)
            if index == active, let next = bestHealthy() {
                output += switchTo(next, reason: "\(sources[index].name): \(fault.code)", at: now)
            }
            return output
        }

        // MARK: Time

        /// Raises what time has brought: stale sources, fail-backs after their hold, disagreements.
        mutating func tick(at now: Duration) -> [HeadingEvent] {
            var output: [HeadingEvent] = []
            for index in sources.indices {
                guard case .healthy(_, let last) = sources[index].health, now - last >= configuration.staleAfter else { continue }
                impair(index)
                output.append(
                    .fault(
                        HeadingFault(
                            code: .stale, source: sources[index].name,
                            reason: "no heading for \(Self.seconds(now - last)) s (stale after \(Self.seconds(configuration.staleAfter)) s); "
                                + "its last heading is no longer current"
                        )
                    )
                )
                if index == active, let next = bestHealthy() {
                    output += switchTo(next, reason: "\(sources[index].name) is stale", at: now)
                }
            }
            output += failBackIfDue(at: now)
            output += checkDisagreement(at: now)
            return output
        }

        /// The next time ``tick(at:)`` has something to decide, if any.
        var nextDeadline: Duration? {
            // Asked after every event: folded, not collected into an array.
            var earliest: Duration?
            func consider(_ deadline: Duration) { earliest = min(earliest ?? deadline, deadline) }
            for source in sources {
                if case .healthy(_, let last) = source.health { consider(last + configuration.staleAfter) }
            }
            if let active {
                for index in 0..<active {
                    if let since = sources[index].health.healthySince { consider(since + configuration.failBackHold) }
                }
            }
            for (_, disagreement) in disagreements where !disagreement.isRaised {
                consider(disagreement.since + configuration.disagreementHold)
            }
            return earliest
        }

        // MARK: Decisions

        private mutating func impair(_ index: Int) {
            sources[index].health = .impaired(lastHeadingAt: sources[index].health.lastHeadingAt)
            sources[index].correction.reset()
            disagreements[index] = nil
            if index == active { disagreements = [:] }
        }

        /// The healthy source of highest priority.
        private func bestHealthy() -> Int? { sources.indices.first { sources[$0].health.isHealthy } }

        /// Fails back to a better source that has been healthy for the hold time.
        private mutating func failBackIfDue(at now: Duration) -> [HeadingEvent] {
            guard let current = active,
                let better = (0..<current).first(where: {
                    sources[$0].health.healthySince.map { now - $0 >= configuration.failBackHold } == true
                })
            else { return [] }
            return switchTo(better, reason: "\(sources[better].name) healthy for \(Self.seconds(configuration.failBackHold)) s", at: now)
        }

        private mutating func switchTo(_ index: Int, reason: String, isStartUp: Bool = false, at now: Duration) -> [HeadingEvent] {
            guard index != active else { return [] }
            let previousIndex = active
            let previous = previousIndex.map { sources[$0].name }
            active = index
            disagreements = [:]
            let verb = isStartUp ? "" : previousIndex.map { index < $0 ? "fail-back: " : "failover: " } ?? ""
            return [
                .notice(
                    HeadingNotice(
                        code: .sourceChanged, source: sources[index].name, previousSource: previous,
                        reason: verb + "headings now from \(sources[index].name)" + (previous.map { " instead of \($0)" } ?? "") + " (\(reason))"
                    )
                )
            ]
        }

        /// Compares each healthy source with the active one; raises a fault for a disagreement that outlasted its hold.
        private mutating func checkDisagreement(at now: Duration) -> [HeadingEvent] {
            // A lone source has nothing to disagree with: its heading is not even copied.
            guard sources.count > 1, let threshold = configuration.disagreementThreshold, let active, sources[active].health.isHealthy,
                let reference = sources[active].lastHeading
            else { return [] }
            var output: [HeadingEvent] = []
            for index in sources.indices where index != active {
                guard sources[index].health.isHealthy, let other = sources[index].lastHeading,
                    let difference = HeadingFilter.change(from: reference, to: other), difference > threshold
                else {
                    disagreements[index] = nil
                    continue
                }
                var disagreement = disagreements[index] ?? (now, false)
                if !disagreement.isRaised, now - disagreement.since >= configuration.disagreementHold {
                    disagreement.isRaised = true
                    output.append(
                        .fault(
                            HeadingFault(
                                code: .disagreement, source: sources[active].name,
                                reason: "\(sources[active].name) and \(sources[index].name) disagree by "
                                    + "\(String(format: "%.1f", difference))° (more than \(threshold)° for \(Self.seconds(configuration.disagreementHold)) s)"
                            )
                        )
                    )
                }
                disagreements[index] = disagreement
            }
            return output
        }


        /// Says that a magnetic source has entered a zone of the model's horizontal field (or left the others).
        private mutating func announce(_ zone: WorldMagneticModel.Field.Zone, for index: Int, at date: Date, into output: inout [HeadingEvent]) {
            let previous = sources[index].magneticZone ?? .normal
            sources[index].magneticZone = zone
            let name = sources[index].name
            let where_ = lastPosition.map { String(format: " at %.2f, %.2f", $0.latitude, $0.longitude) } ?? ""
            switch zone {
            case .blackout:
                output.append(.fault(HeadingFault(
                    code: .magneticBlackout, source: name,
                    reason: "the World Magnetic Model's horizontal field\(where_) is below 2,000 nT (NOAA's blackout zone, near a magnetic pole): "
                        + "this magnetic heading cannot be trusted; steer by a true source (a gyro, a dual-antenna GNSS)",
                    timestamp: date)))
            case .caution:
                output.append(.notice(HeadingNotice(
                    code: .magneticCaution, source: name,
                    reason: "the World Magnetic Model's horizontal field\(where_) is between 2,000 and 6,000 nT (NOAA's caution zone): "
                        + "this magnetic heading may be erratic", timestamp: date)))
            case .normal:
                output.append(.notice(HeadingNotice(
                    code: .recovered, source: name, reason: "out of the magnetic \(previous.rawValue) zone: the horizontal field is 6,000 nT or more", timestamp: date)))
            }
        }

        /// The model's variation at the heading's position (or the last or configured one), at its time.
        private mutating func modelVariation(for heading: Heading, warnings: inout [HeadingEvent]) -> Double? {
            guard let model = configuration.magneticModel,
                let position = heading.position ?? lastPosition ?? configuration.fixedPosition
            else { return nil }
            let day = (heading.timestamp.timeIntervalSince1970 / 86_400).rounded(.down)
            if let modelCache, modelCache.position == position, modelCache.day == day { return modelCache.variation }
            modelCache = nil
            let year = WorldMagneticModel.decimalYear(of: heading.timestamp)
            // A five-year model drifts from the field by a degree or more within a few years of its
            // span: it is extrapolated (with a warning) for a year before and five after, and not used further out.
            guard year >= model.epoch - 1, year <= model.validUntil + 5 else {
                if !hasWarnedOfModelRange {
                    hasWarnedOfModelRange = true
                    warnings.append(
                        .fault(
                            HeadingFault(
                                code: .magneticModelOutdated, source: heading.source,
                                reason: "\(model.name) is valid for \(model.epoch)–\(model.validUntil) and is not used for "
                                    + "\(String(format: "%.1f", year)); no variation is derived from it, so a heading with only one "
                                    + "of true and magnetic stays so",
                                timestamp: heading.timestamp
                            )
                        )
                    )
                }
                return nil
            }
            if !hasWarnedOfModelAge, !model.isValid(at: heading.timestamp) {
                hasWarnedOfModelAge = true
                warnings.append(
                    .fault(
                        HeadingFault(
                            code: .magneticModelOutdated, source: heading.source,
                            reason: "\(model.name) is valid for \(model.epoch)–\(model.validUntil), not \(String(format: "%.1f", year)); "
                                + "variation from it is extrapolated and may be off by a degree or more",
                            timestamp: heading.timestamp
                        )
                    )
                )
            }
            let field = model.field(latitude: position.latitude, longitude: position.longitude, altitude: position.altitude ?? 0, at: heading.timestamp)
            let variation = field.declination
            modelCache = (position, day, variation, field.zone)
            return variation
        }

        /// Seconds to one decimal, without a trailing `.0`.
        static func seconds(_ duration: Duration) -> String {
            let value = ((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 10).rounded() / 10
            return value == value.rounded() ? String(Int(value)) : String(value)
        }
    }
}
