// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingPorts
import Logging
import Synchronization
import NMEA2000

/// One reader thread's work: open, read, split into lines, hand them over, reopen — until its signal.
struct NMEAFeedReader: Sendable {
    let configuration: NMEAFeed.Configuration
    let signal: StopSignal
    let feed: NMEAFeed

    var threadName: String {
        switch configuration.endpoint.transport {
        case .serial(let path, _): "nmea:\(path.split(separator: "/").last ?? "")"
        case .tcp(_, let port): "nmea:tcp\(port)"
        case .udp(_, let port): "nmea:udp\(port)"
        case .standardInput: "nmea:stdin"
        case .childProcess(let path, _): "nmea:\(path.split(separator: "/").last ?? "")"
        case .socketCAN(let interface): "n2k:\(interface)"
        }
    }

    private var milliseconds: Int32 { configuration.readTimeout.pollMilliseconds }

    func run() {
        var backoff = configuration.backoff
        var generator = SystemRandomNumberGenerator()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        var announcedFailure: String?
        while !signal.isStopped {
            let failure: PortFailure
            do throws(PortFailure) {
                let stream = try open()
                defer { stream.close() }
                announcedFailure = nil
                configuration.logger.notice("\(configuration.endpoint): open")
                for tap in feed.taps { tap.feedOpened(at: .now) }
                failure = read(stream, into: buffer, backoff: &backoff)
            } catch {
                failure = error
            }
            guard !signal.isStopped else { return }
            if failure.isFinal {
                for tap in feed.taps { tap.feedFailed(failure, retryIn: nil) }
                configuration.logger.notice("\(configuration.endpoint): \(failure.reason)")
                feed.ended()
                // Nothing more will come: wait for the stop, still ticking the sources' timers.
                while !signal.wait(seconds: 0.25) { for tap in feed.taps { tap.feedTick(at: .now) } }
                return
            }
            let delay = backoff.nextDelay(using: &generator)
            for tap in feed.taps { tap.feedFailed(failure, retryIn: delay) }
            if announcedFailure != failure.reason {
                configuration.logger.notice("\(configuration.endpoint): \(failure.reason); retrying")
                announcedFailure = failure.reason
            }
            signal.wait(seconds: delay)
        }
    }

    private func open() throws(PortFailure) -> any ByteStream {
        if case .serial(let path, .automatic) = configuration.endpoint.transport { return try probe(path) }
        return try configuration.endpoint.transport.open(
            writable: configuration.endpoint.framing == .actisense, connectTimeout: configuration.connectTimeout,
            signal: signal, logger: configuration.logger)
    }

    /// How often an Actisense NGT-1 is sent its start-up message again.
    private static let actisenseStartupInterval: Duration = .seconds(20)

    /// `baud=auto`: listens at each rate in turn until a sentence with a right checksum arrives
    /// (an Actisense message, for `format=actisense`).
    private func probe(_ path: String) throws(PortFailure) -> SerialLineStream {
        let line = try SerialLineStream(path: path, baud: NMEAStreamEndpoint.baudRates[0], writable: configuration.endpoint.framing == .actisense)
        let accepting: Set<SerialBaudProbe.Recognised> = configuration.endpoint.framing == .actisense ? [.actisense] : [.nmea0183]
        let found: (rate: Int, recognised: SerialBaudProbe.Recognised)?
        do throws(PortFailure) {
            found = try SerialBaudProbe.probe(line, slot: configuration.baudProbeTime, accepting: accepting, signal: signal)
        } catch {
            line.close()
            throw error
        }
        if let found {
            feed.setChosenBaud(found.rate)
            configuration.logger.notice("\(path): baud=auto chose \(found.rate) baud (\(found.recognised == .actisense ? "Actisense messages" : "sentences") with right checksums arrive)")
            return line
        }
        line.close()
        throw PortFailure(
            code: .sourceUnavailable,
            reason: "\(path): no \(accepting.contains(.actisense) ? "Actisense message" : "sentence") with a right checksum at any of \(NMEAStreamEndpoint.baudRates.map(String.init).joined(separator: ", ")) baud"
        )
    }

    /// Reads until the transport ends or the signal is set. The backoff starts again from its
    /// first delay once bytes arrive: a server that accepts and closes at once, or a driver that
    /// exits at start, is retried ever more slowly, not four times a second for ever.
    private func read(
        _ stream: any ByteStream, into buffer: UnsafeMutableRawBufferPointer, backoff: inout ReconnectBackoff
    ) -> PortFailure {
        var hasBytes = false
        let isDatagram = if case .udp = configuration.endpoint.transport { true } else { false }
        var splitters = SenderSplitters(configuration.endpoint.framing, maximumLineLength: configuration.maximumLineLength, isDatagram: isDatagram)
        var lastBytesAt = ContinuousClock.now
        let isActisense = configuration.endpoint.framing == .actisense
        var lastStartupAt: ContinuousClock.Instant?
        while !signal.isStopped {
            if isActisense, lastStartupAt.map({ ContinuousClock.now - $0 >= Self.actisenseStartupInterval }) ?? true {
                // The NGT-1 passes every PGN only once told to; told again now and then, as it forgets.
                if !stream.write(ActisenseFrameSplitter.startupMessage), lastStartupAt == nil {
                    configuration.logger.notice("\(configuration.endpoint): cannot send the NGT-1 its start-up message; it may pass only some PGNs")
                }
                lastStartupAt = .now
            }
            let result = stream.read(into: buffer, waitingAtMost: milliseconds, wakingOn: signal.wakeDescriptor)
            let now = ContinuousClock.now
            let taps = feed.taps
            switch result {
            case .bytes(let count, let sender):
                lastBytesAt = now
                if !hasBytes {
                    hasBytes = true
                    backoff.reset()
                }
                let date = Date()
                let bytes = UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
                splitters.append(bytes, from: sender) { piece in for tap in taps { tap.feedReceived(piece, at: date) } }
                for tap in taps { tap.feedReadEnded() }
            case .timedOut:
                if let timeout = configuration.endpoint.noDataTimeout, case .tcp = configuration.endpoint.transport,
                    now - lastBytesAt >= timeout
                {
                    dropPartialLines(&splitters, taps)
                    return PortFailure(code: .sourceUnavailable, reason: "\(configuration.endpoint) sent nothing for \(timeout) (no_data_timeout); reconnecting")
                }
            case .ended(let failure):
                dropPartialLines(&splitters, taps)
                return failure
            }
            for tap in taps { tap.feedTick(at: now) }
        }
        return PortFailure(code: .sourceUnavailable, reason: "stopped")
    }

    /// A connection's partial line is never joined to the next one's bytes: dropped, as a fragment.
    private func dropPartialLines(_ splitters: inout SenderSplitters, _ taps: [any NMEAFeedTap]) {
        let date = Date()
        splitters.discardPartials { piece in for tap in taps { tap.feedReceived(piece, at: date) } }
        for tap in taps { tap.feedReadEnded() }
    }
}
