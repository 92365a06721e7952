// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingPorts
import Logging
import Synchronization

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// A compass's deviation card learned while headingd runs (`deviation=learn`): its raw
/// headings (before any card) and a true source's beside it — the first other source heard giving
/// a true heading that is neither a compass's nor a course over ground — go to a
/// ``DeviationFitter`` (true minus the variation: the reference's own, else the World Magnetic
/// Model's at its position or `[processing] position`). Every ``refitInterval`` headings of the two
/// (compass and reference together, so that whichever arrives last — a recording's, say — still
/// brings a fit with all of them) it fits; a card that covers the circle (``DeviationFitter/Configuration/minimumSectors``) with
/// a residual of at most ``maximumResidual`` is applied to the running processor when it differs
/// from the one applied by 0.3° or more somewhere, logged, and kept in the state directory, from
/// where the next start applies it at once.
///
/// Bounded: the fitter keeps ``maximumSamples`` headings of each kind, then starts afresh (the card
/// applied stays). A fit runs on the delivering thread of the heading that made it due, every
/// ``refitInterval`` headings (a sort of at most ``maximumSamples``: milliseconds).
///
/// Not from a magnetic disturbance: after the compass's `magneticDisturbance` fault its headings are
/// left out until they say the accuracy they said before it again (a disturbed heading says a wider one).
final class DeviationLearner: Sendable {
    /// Headings, compass and reference together, between two fits.
    static let refitInterval = 300
    /// The largest RMS residual of a card applied, degrees.
    static let maximumResidual = 1.5
    /// Headings kept of each kind.
    static let maximumSamples = 100_000

    /// What is kept in the state directory.
    struct Kept: Codable {
        var source: String
        var curve: DeviationCurve
        var residual: Double
        var coverage: Double
        var pairs: Int
        var learnedAt: Date
    }

    private struct State {
        var fitter = DeviationFitter(configuration: DeviationLearner.fitterConfiguration)
        var sinceFit = 0
        var reference: String?
        var applied: DeviationCurve?
        var status = "learning: no pairs yet"
        var lastRefusal: String?
        /// The accuracy of the compass's last heading.
        var lastAccuracy: Double?
        /// In a magnetic disturbance: the accuracy the compass said before it. Its headings are
        /// not learned from until they say that accuracy again (a disturbed one says a wider one).
        var disturbedAbove: Double?
    }

    private static var fitterConfiguration: DeviationFitter.Configuration {
        var configuration = DeviationFitter.Configuration()
        configuration.maximumSamples = maximumSamples
        return configuration
    }

    /// The compass's name.
    let source: String
    private let index: Int
    private let processor: HeadingProcessor
    private let position: GeographicPosition?
    private let file: String?
    private let logger: Logger
    private let state = Mutex(State())
    /// Held through a fit and what follows from it (applying, logging, keeping the card): the
    /// compass's thread and the reference's can both bring a fit due, and a card decided first
    /// must not be applied after one decided later.
    private let fitting = Mutex(())

    /// A learner for the compass at `index`, applying to `processor`; a card kept for it is applied at once.
    /// - Parameters:
    ///   - source: The compass's name.
    ///   - index: Its index among the processor's inputs.
    ///   - processor: Where the card is applied.
    ///   - position: The position for the model's variation when the reference gives none.
    ///   - stateDirectory: Where the card is kept (nowhere when it names no directory).
    ///   - logger: Where each change is logged.
    init(source: String, index: Int, processor: HeadingProcessor, position: GeographicPosition?, stateDirectory: StateDirectory, logger: Logger) {
        self.source = source
        self.index = index
        self.processor = processor
        self.position = position
        self.logger = logger
        // One file per source, named by a digest of its name (a URL is no file name).
        let digest = source.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        file = stateDirectory.file("deviation-\(String(digest, radix: 16)).json")
        // Read through a bounded reader: a card is a few hundred bytes, and a file of a gigabyte in
        // its place (read whole at every start before) is set aside as a damaged one is.
        if let file, let contents = WholeFile.readKept(path: file, limit: Self.largestCard) {
            let data = Data(contents.bytes)
            if !contents.isComplete {
                logger.error("\(DamagedFile.setAside(file, found: "\(source): \(file) is larger than a deviation card (over \(Self.largestCard) bytes)", then: "learning afresh"))")
            } else if let kept = try? JSONDecoder().decode(Kept.self, from: data), kept.source == source, kept.curve.isPlausible {
                apply(kept.curve)
                state.withLock {
                    $0.applied = kept.curve
                    $0.status = String(format: "applied (kept from %@): residual %.2f°, %.0f %% covered; learning on", "\(kept.learnedAt)", kept.residual, kept.coverage * 100)
                }
                logger.notice("\(source): the deviation card learned \(kept.learnedAt) applied from \(file): \(kept.curve.parameter())")
            } else {
                logger.error("\(DamagedFile.setAside(file, found: "\(source): \(file) holds no deviation card (damaged?)", then: "learning afresh"))")
            }
        }
    }

    /// The largest kept card read, in bytes.
    static let largestCard = 65_536

    /// What it is doing, for the status report.
    var status: String { state.withLock { $0.status } }

    /// The compass headings the fitter holds.
    var compassHeadings: Int { state.withLock { $0.fitter.compassCount } }

    /// Hears the compass (the processor's source at the learner's index) and the processor's
    /// other sources until the returned values are cancelled: the reference is the first of the
    /// others heard giving a true heading.
    func attach() -> [AnyCancellable] {
        processor.sources.indices.map { index in
            if index == self.index {
                return processor.addSourceStage(at: index) { [self] event in
                    switch event {
                    case .heading(let heading): hearCompass(heading)
                    case .fault(let fault) where fault.code == .magneticDisturbance: hearDisturbance()
                    default: break
                    }
                }
            }
            let name = processor.sources[index].name
            return processor.addSourceStage(at: index) { [self] event in
                if case .heading(let heading) = event { hearReference(heading, from: name) }
            }
        }
    }

    private func hearReference(_ heading: Heading, from name: String) {
        guard let truth = heading.trueHeading, heading.kind != .courseOverGround, heading.kind != .compass, heading.kind != .simulated else { return }
        guard let variation = heading.variation(orModelAt: position) else { return }
        let due = state.withLock { state -> DeviationFitter? in
            if state.reference == nil { state.reference = name }
            guard state.reference == name else { return nil }
            state.fitter.addReference(truth - variation, at: heading.timestamp.timeIntervalSince1970)
            return Self.fitterIfDue(&state)
        }
        if let due { fit(due) }
    }

    /// Counts one heading heard, and hands a copy of the fitter over when a fit is due.
    private static func fitterIfDue(_ state: inout State) -> DeviationFitter? {
        state.sinceFit += 1
        guard state.sinceFit >= refitInterval, state.reference != nil, state.fitter.compassCount > 0 else { return nil }
        state.sinceFit = 0
        return state.fitter
    }

    /// The compass raised a magnetic disturbance: its headings are not learned from until it is over.
    private func hearDisturbance() {
        state.withLock { state in
            if state.disturbedAbove == nil { state.disturbedAbove = state.lastAccuracy ?? 0 }
        }
    }

    private func hearCompass(_ heading: Heading) {
        // The raw heading: the proxy's, before the processor applies any card.
        guard let magnetic = heading.magneticHeading, heading.deviation == nil else { return }
        let due = state.withLock { state -> DeviationFitter? in
            let accuracy = heading.headingAccuracy ?? 0
            if let limit = state.disturbedAbove {
                guard accuracy <= limit else { return nil }
                state.disturbedAbove = nil
            }
            state.lastAccuracy = accuracy
            if state.fitter.compassCount >= Self.maximumSamples || state.fitter.referenceCount >= Self.maximumSamples {
                state.fitter = DeviationFitter(configuration: Self.fitterConfiguration)
            }
            state.fitter.addCompass(magnetic, at: heading.timestamp.timeIntervalSince1970)
            return Self.fitterIfDue(&state)
        }
        if let due { fit(due) }
    }

    /// Fits and applies the card if it is good enough; otherwise says what is missing. One fit at a time.
    private func fit(_ fitter: DeviationFitter) {
        var fitter = fitter
        fitting.withLock { _ in
            do {
                let fit = try fitter.fit()
                consider(fit)
            } catch {
                let missing = "\(error)"
                state.withLock { state in
                    state.status = state.applied == nil ? "learning: \(missing)" : "applied; learning on: \(missing)"
                    state.lastRefusal = missing
                }
            }
        }
    }

    private func consider(_ fit: DeviationFitter.Fit) {
        let reference = state.withLock { $0.reference } ?? "?"
        let summary = String(format: "residual %.2f°, %.0f %% covered, %d pairs", fit.residual, fit.coverage * 100, fit.pairs)
        guard fit.residual <= Self.maximumResidual, fit.curve.isPlausible else {
            state.withLock { $0.status = "learning: the last fit is not good enough (\(summary); at most \(Self.maximumResidual)° RMS)" }
            return
        }
        let changed = state.withLock { state -> Bool in
            let differs = state.applied.map { applied in
                stride(from: 0.0, to: 360, by: 15).contains { abs(applied.deviation(at: $0) - fit.curve.deviation(at: $0)) >= 0.3 }
            } ?? true
            if differs { state.applied = fit.curve }
            state.status = "applied: \(summary), against \(reference)"
            return differs
        }
        guard changed else { return }
        apply(fit.curve)
        logger.notice(
            "\(source): deviation card learned against \(reference) (\(summary); A \(Self.format(fit.curve.a)) B \(Self.format(fit.curve.b)) C \(Self.format(fit.curve.c)) D \(Self.format(fit.curve.d)) E \(Self.format(fit.curve.e))): applied; \(fit.curve.parameter())"
        )
        guard let file else { return }
        do {
            let kept = Kept(source: source, curve: fit.curve, residual: fit.residual, coverage: fit.coverage, pairs: fit.pairs, learnedAt: Date())
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(kept).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            logger.warning("\(source): cannot keep the deviation card in \(file): \(error.localizedDescription)")
        }
    }

    private func apply(_ curve: DeviationCurve) {
        let entries = curve.card().map { (heading: $0.heading, deviation: $0.deviation) }
        processor.setDeviationTable(try? DeviationTable(entries), forSourceAt: index)
    }

    private static func format(_ value: Double) -> String { String(format: "%+.2f°", value) }
}

extension DeviationCurve {
    /// Whether a kept or fitted curve may be applied: finite, and within what a compass's deviation is (±30°).
    var isPlausible: Bool {
        [a, b, c, d, e].allSatisfy(\.isFinite) && stride(from: 0.0, to: 360, by: 15).allSatisfy { abs(deviation(at: $0)) <= 30 }
    }
}
