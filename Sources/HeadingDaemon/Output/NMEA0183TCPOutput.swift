// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import Logging
import NIOCore
import Prometheus
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Serves the chosen, corrected heading as NMEA 0183 sentences over TCP (SwiftNIO): a consumer of
/// the heading center, run as a Service.
///
/// Every client gets every sentence at the output's rate (an ``NMEA0183Sender``: the newest heading
/// wins a slot; `THS` mode `V` after a fault). A client that stops reading fills its small outbound buffers (8 KiB in NIO, its write
/// watermark, and a small kernel send buffer); while they are full the client keeps only the newest sentence batch, and after
/// ``writeTimeout`` without room it is disconnected — it never delays the pipeline or another
/// client. Beyond ``Configuration/maximumClients`` a connection is refused with one log line. What
/// a client sends is discarded.
final class NMEA0183TCPOutput: Service, HeadingEventConsumer, Sendable {
    /// What to serve, and where.
    struct Configuration: Sendable, Equatable {
        let address: ListenAddress
        let maximumClients: Int
        let sender: NMEA0183Sender.Configuration
    }

    /// How long a client may have no room for output before it is disconnected.
    static let writeTimeout: Duration = .seconds(5)

    private struct Client {
        let channel: any Channel
        var blockedSince: ContinuousClock.Instant?
        var latest: ByteBuffer?
    }

    private struct State {
        var clients: [ObjectIdentifier: Client] = [:]
        var isStopped = false
    }

    private let configuration: Configuration
    /// The fan-out it hears, its metrics, the log and the event loops.
    private let services: OutputServices
    private let state = Mutex(State())
    /// Set once in init (its closure needs `self`).
    private let sender = Mutex<NMEA0183Sender?>(nil)
    /// The listening channel, once ``bind()`` has succeeded.
    private let server = Mutex<(any Channel)?>(nil)

    /// - Parameters:
    ///   - configuration: What to serve, and where.
    ///   - services: The fan-out it hears, its metrics, and the log: where clients coming and going are logged.
    init(configuration: Configuration, services: OutputServices) {
        self.configuration = configuration
        self.services = services
        let sender = NMEA0183Sender(configuration: configuration.sender, center: services.center, eventLoop: services.group.next()) { [weak self] bytes in
            self?.broadcast(bytes)
        }
        self.sender.withLock { $0 = sender }
    }

    /// Starts listening, before the pipeline runs, so that an address that cannot be used ends
    /// headingd before any heading flows.
    /// - Throws: ``OutputOpenError`` naming the address and the system's reason.
    func bind() async throws(OutputOpenError) {
        let server: any Channel
        do {
            server = try await ServerBootstrap(group: services.group)
                .serverChannelOption(ChannelOptions.backlog, value: 32)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 2 * 1024, high: 8 * 1024))
                // A small kernel buffer too, so that a client that stops reading is seen soon.
                .childChannelOption(ChannelOptions.socketOption(.so_sndbuf), value: 8 * 1024)
                .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
                .childChannelInitializer { [weak self] channel in
                    guard let self else { return channel.close() }
                    return self.accept(channel)
                }
                .bind(host: configuration.address.host, port: configuration.address.port)
                .get()
        } catch let error as IOError {
            throw OutputOpenError.cannotListen("NMEA 0183 TCP output", on: configuration.address, String(cString: strerror(error.errnoCode)))
        } catch {
            throw OutputOpenError.cannotListen("NMEA 0183 TCP output", on: configuration.address, "\(error)")
        }
        self.server.withLock { $0 = server }
        services.logger.notice("NMEA 0183 over TCP on \(configuration.address), sentences \(configuration.sender.sentences.map(\.rawValue).joined(separator: ","))")
    }

    /// Starts hearing the fan-out (``HeadingEventConsumer``).
    func startConsuming() { sender.withLock { $0 }?.start() }

    /// Serves until shutdown (listening first, if ``bind()`` was not called).
    func run() async throws {
        if server.withLock({ $0 == nil }) { try await bind() }
        guard let server = server.withLock({ $0 }) else { return }
        let sender = self.sender.withLock { $0 }
        sender?.start()
        try? await gracefulShutdown()
        sender?.stop()
        let channels = state.withLock { state in
            state.isStopped = true
            return state.clients.values.map(\.channel)
        }
        for channel in channels { channel.close(promise: nil) }
        try? await server.close()
    }

    // MARK: Clients

    private func accept(_ channel: any Channel) -> EventLoopFuture<Void> {
        let id = ObjectIdentifier(channel)
        let admitted = state.withLock { state -> Int? in
            guard !state.isStopped, state.clients.count < configuration.maximumClients else { return nil }
            state.clients[id] = Client(channel: channel)
            return state.clients.count
        }
        let peer = channel.remoteAddress.map { "\($0)" } ?? "a client"
        if let admitted { services.metrics?.clients.set(to: Double(admitted)) } else { services.metrics?.clientsDropped.increment() }
        guard admitted != nil else {
            services.logger.warning("NMEA 0183 TCP output: \(peer) refused: \(configuration.maximumClients) clients already connected")
            return channel.close()
        }
        services.logger.info("NMEA 0183 TCP output: \(peer) connected")
        return channel.pipeline.addHandler(ClientHandler(output: self, id: id, peer: peer))
    }

    fileprivate func clientClosed(_ id: ObjectIdentifier, peer: String) {
        let remaining = state.withLock { state -> Int? in state.clients.removeValue(forKey: id) == nil ? nil : state.clients.count }
        if let remaining {
            services.metrics?.clients.set(to: Double(remaining))
            services.logger.info("NMEA 0183 TCP output: \(peer) disconnected")
        }
    }

    fileprivate func clientWritable(_ id: ObjectIdentifier) {
        let pending: (any Channel, ByteBuffer)? = state.withLock { state in
            guard var client = state.clients[id] else { return nil }
            defer { state.clients[id] = client }
            client.blockedSince = nil
            guard let latest = client.latest else { return nil }
            client.latest = nil
            return (client.channel, latest)
        }
        if let (channel, bytes) = pending {
            channel.writeAndFlush(bytes, promise: nil)
            services.metrics?.messagesSent.increment()
        }
    }

    // MARK: Sentences

    /// Hands one heading's sentences to every client with room.
    private func broadcast(_ buffer: ByteBuffer) {
        let now = ContinuousClock.now
        let (writable, stalled, replaced): ([any Channel], [any Channel], Int) = state.withLock { state in
            var writable: [any Channel] = []
            var stalled: [any Channel] = []
            var replaced = 0
            for (id, var client) in state.clients {
                if client.channel.isWritable {
                    writable.append(client.channel)
                    continue
                }
                // No room: keep only the newest batch, and give up on a client that stays full.
                let since = client.blockedSince ?? now
                if now - since > Self.writeTimeout {
                    stalled.append(client.channel)
                } else {
                    if client.latest != nil { replaced += 1 }
                    client.blockedSince = since
                    client.latest = buffer
                    state.clients[id] = client
                }
            }
            return (writable, stalled, replaced)
        }
        for channel in writable { channel.writeAndFlush(buffer, promise: nil) }
        if let metrics = services.metrics {
            if !writable.isEmpty { metrics.messagesSent.increment(by: Int64(writable.count)) }
            if replaced > 0 { metrics.messagesDropped.increment(by: Int64(replaced)) }
            if !stalled.isEmpty { metrics.clientsDropped.increment(by: Int64(stalled.count)) }
        }
        for channel in stalled {
            services.logger.warning("NMEA 0183 TCP output: \(channel.remoteAddress.map { "\($0)" } ?? "a client") disconnected: it read nothing for \(Self.writeTimeout)")
            channel.close(promise: nil)
        }
    }
}

/// One client's end of the pipeline: discards what the client sends, and tells the output when
/// the client has room again or has gone.
private final class ClientHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let output: NMEA0183TCPOutput
    let id: ObjectIdentifier
    let peer: String

    init(output: NMEA0183TCPOutput, id: ObjectIdentifier, peer: String) {
        self.output = output
        self.id = id
        self.peer = peer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}  // input is discarded

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { output.clientWritable(id) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        output.clientClosed(id, peer: peer)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)  // a reset by the peer: the client has gone
    }
}
