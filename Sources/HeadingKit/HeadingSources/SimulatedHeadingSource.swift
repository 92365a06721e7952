// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A heading source that plays a ``HeadingSimulation``: no hardware, same seed, same headings.
///
/// It paces itself on an injected clock — `ContinuousClock` in the daemon, a test clock in tests,
/// so that tests never sleep. The simulation is always authorized.
public final class SimulatedHeadingSource: HeadingSource {

    /// The simulation's configuration.
    public let configuration: HeadingSimulation.Configuration
    /// Makes, at each start, a function that sleeps until a given time after that start.
    private let makePacer: @Sendable () -> Pacer
    /// The delegate, and the task that plays the simulation while started.
    private let state = HeadingSourceState<Task<Void, Never>?>(nil)

    /// Creates a simulated source.
    /// - Parameters:
    ///   - configuration: The simulation to play.
    ///   - clock: The clock that paces it.
    public init<C: Clock>(configuration: HeadingSimulation.Configuration = .init(), clock: C)
    where C.Duration == Duration {
        self.configuration = configuration
        self.makePacer = {
            let origin = clock.now
            return { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
        }
    }

    /// Creates a simulated source paced by `ContinuousClock`.
    /// - Parameter configuration: The simulation to play.
    public convenience init(configuration: HeadingSimulation.Configuration = .init()) {
        self.init(configuration: configuration, clock: ContinuousClock())
    }

    /// Sleeps until the given time after the start.
    private typealias Pacer = @Sendable (Duration) async throws -> Void

    deinit {
        state.withLock { $0?.cancel() }
    }

    /// The configured source name, `simulation` by default.
    public var name: String { configuration.sourceName }

    /// Receives the simulation's reports. Held weakly.
    public var delegate: (any HeadingSourceDelegate)? {
        get { state.delegate }
        set { state.delegate = newValue }
    }

    /// Reports ``HeadingAuthorizationStatus/authorized`` at once: a simulation needs no permission.
    public func requestAuthorization() {
        state.report(.authorizationChanged(.authorized), from: self)
    }

    /// Starts a fresh simulation from tick 0; does nothing while one runs.
    public func start() {
        let simulation = HeadingSimulation(configuration: configuration)
        let pacer = makePacer()
        state.withLock { task in
            guard task == nil else { return }
            task = Task { [weak self] in
                await Self.play(simulation, pacedBy: pacer) { [weak self] in self }
            }
        }
    }

    /// Stops the simulation; no report follows once the current one is delivered.
    public func stop() {
        let task = state.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
    }

    private static func play(
        _ simulation: HeadingSimulation,
        pacedBy pacer: Pacer,
        source currentSource: @Sendable () -> SimulatedHeadingSource?
    ) async {
        var simulation = simulation
        let interval = Duration.seconds(1 / simulation.configuration.rate)
        while !Task.isCancelled {
            do {
                try await pacer(interval * simulation.tick)
            } catch {
                return
            }
            // The source is held only for one delivery, so that dropping it ends the simulation.
            guard !Task.isCancelled, let source = currentSource() else { return }
            if let report = simulation.next().report { source.state.report(report, from: source) }
        }
    }
}
