// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import Synchronization

/// Sends the chosen, corrected heading as NMEA 0183 sentences in UDP datagrams (SwiftNIO) to
/// one or more `HOST:PORT` targets, one datagram per heading per target: a consumer of the heading
/// center, run as a Service. A broadcast address (`192.168.1.255`, `255.255.255.255`) turns
/// `SO_BROADCAST` on. A datagram that finds the socket full is dropped, never queued.
final class NMEA0183UDPOutput: Service, HeadingEventConsumer, Sendable {
    /// Where to send, and what.
    struct Configuration: Sendable, Equatable {
        let targets: [ListenAddress]
        let sender: NMEA0183Sender.Configuration
    }

    private let configuration: Configuration
    /// The fan-out it hears, its metrics, the log and the event loops.
    private let services: OutputServices
    /// The socket and the resolved targets, once ``open()`` has succeeded.
    private let socket = Mutex<(channel: any Channel, targets: [SocketAddress])?>(nil)
    /// The sentences' writer, made with the socket by ``open()``.
    private let sender = Mutex<NMEA0183Sender?>(nil)

    /// - Parameters:
    ///   - configuration: Where to send, and what.
    ///   - services: The fan-out it hears, its metrics, and the log: where the output says where it sends.
    init(configuration: Configuration, services: OutputServices) {
        self.configuration = configuration
        self.services = services
    }

    /// Resolves every target and opens the socket, before the pipeline runs.
    /// - Throws: ``OutputOpenError`` naming the target and the reason.
    func open() async throws(OutputOpenError) {
        var addresses: [SocketAddress] = []
        for target in configuration.targets {
            do {
                addresses.append(try SocketAddress.makeAddressResolvingHost(target.host, port: target.port))
            } catch {
                throw OutputOpenError.cannotSend("NMEA 0183 UDP output", to: target.description, "unknown host (\(error))")
            }
        }
        let broadcast = configuration.targets.contains { $0.host.hasSuffix(".255") }
        let anyIPv6 = addresses.contains { if case .v6 = $0 { true } else { false } }
        let channel: any Channel
        do {
            channel = try await DatagramBootstrap(group: services.group)
                .channelOption(ChannelOptions.socketOption(.so_broadcast), value: broadcast ? 1 : 0)
                .bind(host: anyIPv6 ? "::" : "0.0.0.0", port: 0)
                .get()
        } catch let error as IOError {
            throw OutputOpenError.cannotSend("NMEA 0183 UDP output", to: configuration.targets.map(\.description).joined(separator: ", "), String(cString: strerror(error.errnoCode)))
        } catch {
            throw OutputOpenError.cannotSend("NMEA 0183 UDP output", to: configuration.targets.map(\.description).joined(separator: ", "), "\(error)")
        }
        socket.withLock { $0 = (channel, addresses) }
        let metrics = services.metrics
        let targets = addresses
        let sender = NMEA0183Sender(configuration: configuration.sender, center: services.center, eventLoop: channel.eventLoop) { bytes in
            guard channel.isWritable else {  // the socket is full: this heading is dropped
                metrics?.messagesDropped.increment(by: Int64(targets.count))
                return
            }
            for target in targets {
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: bytes), promise: nil)
            }
            metrics?.messagesSent.increment(by: Int64(targets.count))
        }
        self.sender.withLock { $0 = sender }
        services.logger.notice(
            "NMEA 0183 over UDP to \(configuration.targets.map(\.description).joined(separator: ", ")), sentences \(configuration.sender.sentences.map(\.rawValue).joined(separator: ","))"
        )
    }

    /// Starts hearing the fan-out, once ``open()`` has made the socket (``HeadingEventConsumer``).
    func startConsuming() { sender.withLock { $0 }?.start() }

    /// Sends until shutdown (opening first, if ``open()`` was not called).
    func run() async throws {
        if socket.withLock({ $0 == nil }) { try await open() }
        guard let (channel, _) = socket.withLock({ $0 }), let sender = sender.withLock({ $0 }) else { return }
        sender.start()
        try? await gracefulShutdown()
        sender.stop()
        try? await channel.close()
    }
}
