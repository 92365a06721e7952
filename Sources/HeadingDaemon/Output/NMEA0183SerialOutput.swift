// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingKitGPSD
import HeadingOutputs
import HeadingPorts
import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import Synchronization

/// Writes the chosen, corrected heading as NMEA 0183 sentences to a serial line (SwiftNIO over the
/// tty's descriptor), for an autopilot or a plotter wired to this computer: a consumer of the
/// heading center, run as a Service. The line is set raw, 8N1, at ``Configuration/baud``. A device
/// that cannot be opened, or that goes away (a USB adapter pulled), is logged as a fault and
/// opened again with backoff (0.25 s doubling to 5 s), forever, until shutdown; sentences meanwhile
/// are dropped, as are sentences that find the line's buffer full.
final class NMEA0183SerialOutput: Service, HeadingEventConsumer, Sendable {
    /// Which line, how fast, and what.
    struct Configuration: Sendable, Equatable {
        let device: String
        let baud: Int
        let sender: NMEA0183Sender.Configuration
    }

    private let configuration: Configuration
    /// The fan-out it hears, its metrics, the log and the event loops.
    private let services: OutputServices
    /// The open line, while there is one.
    private let line = Mutex<(any Channel)?>(nil)
    /// The sentences' writer to the line. Set once in init (its closure needs `self`).
    private let sender = Mutex<NMEA0183Sender?>(nil)

    /// - Parameters:
    ///   - configuration: Which line, how fast, and what.
    ///   - services: The fan-out it hears, its metrics, and the log: where opening, losing and reopening the line are logged.
    init(configuration: Configuration, services: OutputServices) {
        self.configuration = configuration
        self.services = services
        let sender = NMEA0183Sender(configuration: configuration.sender, center: services.center, eventLoop: services.group.next()) { [weak self] bytes in
            guard let channel = self?.line.withLock({ $0 }) else { return }  // no line now: nothing to count
            guard channel.isWritable else {  // the line is slower than the headings: this one is dropped
                self?.services.metrics?.messagesDropped.increment()
                return
            }
            channel.writeAndFlush(bytes, promise: nil)
            self?.services.metrics?.messagesSent.increment()
        }
        self.sender.withLock { $0 = sender }
    }

    /// Starts hearing the fan-out (``HeadingEventConsumer``).
    func startConsuming() { sender.withLock { $0 }?.start() }

    func run() async throws {
        guard let sender = sender.withLock({ $0 }) else { return }
        sender.start()
        defer { sender.stop() }
        await cancelWhenGracefulShutdown {
            var backoff = ReconnectBackoff()
            var generator = SystemRandomNumberGenerator()
            while !Task.isCancelled {
                let failure: String
                do throws(PortFailure) {
                    let descriptor = try SerialLineStream.openLine(self.configuration.device, baud: self.configuration.baud, flags: O_WRONLY)
                    failure = await self.write(to: descriptor, resetting: &backoff)
                } catch {
                    failure = error.reason
                }
                guard !Task.isCancelled else { break }
                let delay = backoff.nextDelay(using: &generator)
                LineWriter.standardError.write(
                    "headingd: fault: NMEA 0183 serial output: \(failure); reopening in \(String(format: "%.2f", delay)) s",
                    priority: .warning
                )
                try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            }
        }
    }

    /// Writes to the line open on `descriptor` (the sender's sentences go to it) until it goes
    /// away or the output stops; closes it.
    /// - Parameters:
    ///   - descriptor: The open line, which this takes over.
    ///   - backoff: The reopening's backoff, reset once the line takes writes.
    /// - Returns: Why the writing ended, for the fault.
    private func write(to descriptor: Int32, resetting backoff: inout ReconnectBackoff) async -> String {
        do {
            let channel = try await NIOPipeBootstrap(group: services.group).takingOwnershipOfDescriptor(output: descriptor).get()
            line.withLock { $0 = channel }
            services.logger.notice("NMEA 0183 serial output: writing to \(configuration.device) at \(configuration.baud) baud")
            backoff.reset()
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            line.withLock { $0 = nil }
            return "\(configuration.device): the device went away"
        } catch {
            close(descriptor)
            return "\(configuration.device): cannot write to it: \(error)"
        }
    }
}
