// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// The deterministic heading sequence behind ``SimulatedHeadingSource``: a pure value, no clock, no I/O.
///
/// The simulated vessel swings either side of north in steady turns — starboard through north, a
/// steady course, port back through north, a steady course — so every cycle crosses north both
/// ways. Gaussian noise is added to each heading, and the sensor drops out at a fixed interval:
/// the first silent tick raises a ``HeadingFault/Code/deviceLost`` fault, and headings resume after
/// the dropout. The seed decides the swing's amplitude, period and phase, the magnetic variation
/// and the noise; equal seeds give equal sequences.
public struct HeadingSimulation: Sendable {
    /// What one tick of the simulation produced.
    public enum Step: Sendable, Hashable {
        /// A heading.
        case heading(Heading)
        /// The start of a dropout.
        case fault(HeadingFault)
        /// A tick inside a dropout: nothing to report.
        case silence

        /// What a source reports for this step; `nil` for silence.
        public var report: HeadingSourceReport? {
            switch self {
            case .heading(let heading): .heading(heading)
            case .fault(let fault): .fault(fault)
            case .silence: nil
            }
        }
    }

    /// How the simulation behaves.
    public struct Configuration: Sendable, Hashable {
        /// The seed; equal seeds give equal sequences.
        public var seed: UInt64
        /// Headings per second; must be positive.
        public var rate: Double
        /// The standard deviation of the noise added to each heading, in degrees.
        public var noise: Double
        /// Seconds from the start of one dropout to the start of the next; `nil` for no dropouts.
        public var dropoutInterval: Double?
        /// How long each dropout lasts, in seconds.
        public var dropoutDuration: Double
        /// The timestamp of the first heading; later ones follow at `1 / rate` seconds. `nil`: the time the source starts.
        public var epoch: Date?
        /// The name headings and faults carry as their source.
        public var sourceName: String

        /// Creates a configuration.
        /// - Parameters:
        ///   - seed: The seed. Default 1.
        ///   - rate: Headings per second. Default 10.
        ///   - noise: Noise standard deviation in degrees. Default 0.3.
        ///   - dropoutInterval: Seconds between dropouts, or `nil` for none. Default 30.
        ///   - dropoutDuration: Seconds each dropout lasts. Default 3.
        ///   - epoch: The first heading's timestamp, or `nil` for the start time. Default `nil`.
        ///   - sourceName: The source name. Default `simulation`.
        public init(
            seed: UInt64 = 1,
            rate: Double = 10,
            noise: Double = 0.3,
            dropoutInterval: Double? = 30,
            dropoutDuration: Double = 3,
            epoch: Date? = nil,
            sourceName: String = "simulation"
        ) {
            self.seed = seed
            self.rate = rate
            self.noise = noise
            self.dropoutInterval = dropoutInterval
            self.dropoutDuration = dropoutDuration
            self.epoch = epoch
            self.sourceName = sourceName
        }
    }

    /// The configuration this simulation runs.
    public let configuration: Configuration
    /// The number of ticks produced so far.
    public private(set) var tick = 0

    private let epoch: Date
    private let amplitude: Double
    private let turnDuration: Double
    private let center: Double
    private let phase: Double
    private let variation: Double
    private var random: SeededRandomNumberGenerator

    /// Creates a simulation.
    /// - Parameters:
    ///   - configuration: How it behaves.
    ///   - epoch: The first heading's timestamp, used when the configuration gives none.
    public init(configuration: Configuration, epoch: Date = Date()) {
        precondition(configuration.rate > 0 && configuration.rate.isFinite, "rate must be positive")
        self.configuration = configuration
        self.epoch = configuration.epoch ?? epoch
        var random = SeededRandomNumberGenerator(seed: configuration.seed)
        amplitude = Double.random(in: 40...80, using: &random)
        turnDuration = Double.random(in: 8...20, using: &random)
        center = Double.random(in: -10...10, using: &random)
        phase = Double.random(in: 0..<1, using: &random)
        variation = (Double.random(in: -15...15, using: &random) * 10).rounded() / 10
        self.random = random
    }

    /// The seconds from the start to the given tick.
    /// - Parameter tick: A tick number.
    /// - Returns: `tick / rate`.
    public func elapsed(atTick tick: Int) -> Double { Double(tick) / configuration.rate }

    /// Produces the next tick's step.
    /// - Returns: A heading, the fault that starts a dropout, or silence during one.
    public mutating func next() -> Step {
        defer { tick += 1 }
        let time = elapsed(atTick: tick)
        let timestamp = epoch.addingTimeInterval(time)
        if let interval = configuration.dropoutInterval, interval > 0, configuration.dropoutDuration > 0 {
            let intoCycle = time.truncatingRemainder(dividingBy: interval)
            let dropoutStart = interval - configuration.dropoutDuration
            if intoCycle >= dropoutStart {
                let previous = elapsed(atTick: tick - 1).truncatingRemainder(dividingBy: interval)
                let isFirstSilentTick = tick == 0 || previous < dropoutStart || previous > intoCycle
                guard isFirstSilentTick else { return .silence }
                return .fault(
                    HeadingFault(
                        code: .deviceLost,
                        source: configuration.sourceName,
                        reason: "simulated dropout of \(configuration.dropoutDuration) s",
                        timestamp: timestamp
                    )
                )
            }
        }
        let noise = random.nextGaussian(standardDeviation: configuration.noise)
        return .heading(
            Heading(
                trueHeading: Self.centidegrees(swing(at: time) + noise),
                magneticHeading: Self.centidegrees(swing(at: time) + noise - variation),
                headingAccuracy: (2 * configuration.noise * 100).rounded() / 100,
                timestamp: timestamp,
                source: configuration.sourceName,
                kind: .simulated,
                magneticVariation: variation
            )
        )
    }

    /// `degrees` on the circle, rounded to 0.01° as a sensor would report it. Folding before
    /// rounding keeps the printed value short: −48.16 + 360 is 311.84000000000003, not 311.84.
    private static func centidegrees(_ degrees: Double) -> Double {
        (Degrees.normalized(degrees)! * 100).rounded() / 100
    }

    /// The noiseless heading at a time: a trapezoid wave around ``center`` through north.
    private func swing(at time: Double) -> Double {
        let holdDuration = turnDuration / 2
        let cycle = 2 * (turnDuration + holdDuration)
        let position = (time / cycle + phase).truncatingRemainder(dividingBy: 1) * cycle
        let low = center - amplitude
        let high = center + amplitude
        switch position {
        case ..<turnDuration:
            return low + (high - low) * position / turnDuration
        case ..<(turnDuration + holdDuration):
            return high
        case ..<(2 * turnDuration + holdDuration):
            return high - (high - low) * (position - turnDuration - holdDuration) / turnDuration
        default:
            return low
        }
    }
}
