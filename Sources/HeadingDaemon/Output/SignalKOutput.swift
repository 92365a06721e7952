// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import NIOWebSocket
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Serves the chosen, corrected heading as a Signal K source (Hummingbird): discovery at
/// `/signalk`, the full model at `/signalk/v1/api/` and any sub-path of it, and the WebSocket delta
/// stream at `/signalk/v1/stream` with `subscribe` / `unsubscribe` requests, each client at its own
/// rate. Faults and recoveries are notifications under `notifications.navigation.heading.`.
///
/// Read-only: `PUT`, `POST`, `DELETE` and `PATCH` answer 405. Bounded everywhere: the stream
/// clients (``Configuration/maximumClients``; the next is closed at once with 1013, try again
/// later, and one log line; a plain GET of the stream answers 503 then), the subscriptions a client holds, a message's size (``maximumMessageSize``, else the
/// connection closes with 1009), each client's queue (``clientBacklog`` events, newest kept), and a
/// write that finds no room for ``writeTimeout`` drops its client.
final class SignalKOutput: Service, HeadingEventConsumer, Sendable {
    /// What to serve, and where.
    struct Configuration: Sendable {
        let address: ListenAddress
        let selfURN: String
        let maximumClients: Int
        let maximumSubscriptions: Int
        /// How the HTTP listener defends itself: slow heads, idle connections, its connections, request size.
        var limits = HTTPLimits()
        /// The metrics served at `/metrics` on the same listener, when they are on.
        var metrics: HeadingMetrics? = nil
        /// The output's own metrics: stream clients, deltas, drops.
        var outputMetrics: OutputMetrics? = nil
        /// The status service (the page at `/`, `/status.json`, `/status/events`), when it is on.
        var status: StatusRoutes? = nil
        /// The History API, when the history is kept.
        var history: HistoryRoutes? = nil
    }

    /// How long a client may have no room for output before it is disconnected.
    static let writeTimeout: Duration = .seconds(5)
    /// The most events queued for one client; older ones are dropped first.
    static let clientBacklog = 64
    /// The kernel send buffer of each stream client, in bytes (Linux doubles it).
    static let socketSendBuffer = 32 * 1024
    /// The largest message a client may send, in bytes.
    static let maximumMessageSize = 16 * 1024

    private let configuration: Configuration
    private let hub: SignalKHub
    private let logger: Logger

    /// - Parameters:
    ///   - configuration: What to serve, and where.
    ///   - center: The center headings and faults are posted to.
    ///   - logger: Where clients coming and going are logged.
    init(configuration: Configuration, center: any HeadingEventCenter = NotificationCenter.heading, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        hub = SignalKHub(selfURN: configuration.selfURN, center: center, metrics: configuration.outputMetrics)
    }

    /// Checks that the address can be listened on, before the pipeline runs, so that one that
    /// cannot ends headingd before any heading flows. Hummingbird binds in ``run()``; the check
    /// binds a socket of its own to the same address and closes it, without listening: a listening
    /// probe accepted a client that connected in that moment, and the client hung there unserved.
    /// - Throws: ``OutputOpenError`` naming the address and the system's reason.
    func bind() async throws(OutputOpenError) {
        if let reason = configuration.address.bindProbe() { throw OutputOpenError.cannotListen("Signal K output", on: configuration.address, reason) }
    }

    /// Starts keeping the model from the fan-out's headings and faults (``HeadingEventConsumer``).
    func startConsuming() { hub.start() }

    /// Serves until shutdown.
    func run() async throws {
        hub.start()
        defer { hub.stop() }
        let guardian = HTTPConnectionGuard(limits: configuration.limits, logger: logger)
        let application = Application(
            router: router(),
            server: HTTPServerBuilder { [hub, configuration, logger, guardian] responder in
                GuardedChildChannel(inner: HTTP1WebSocketUpgradeChannel(
                responder: responder,
                configuration: .init(
                    // A plain HTTP connection idle for http.idle_timeout is closed (a stream, once upgraded, is pinged instead).
                    http1: .init(idleTimeout: .milliseconds(Int64(configuration.limits.idleTimeout * 1000))),
                    ws: .init(maxFrameSize: Self.maximumMessageSize, autoPing: .enabled(timePeriod: .seconds(30)), closeTimeout: .milliseconds(500))
                )
            ) { [hub, configuration, logger, guardian] request, channel, _ in
                guard request.path?.split(separator: "?").first == "/signalk/v1/stream" else { return .dontUpgrade }
                // A stream from here: the connection guard neither times it nor closes it to make room.
                guardian.set(channel, .stream)
                let initial = Self.initialSubscription(request.path ?? "")
                let id = UUID()
                let peer = channel.remoteAddress.map { "\($0)" } ?? "?"
                guard let events = hub.addClient(id, channel: channel, limit: configuration.maximumClients, backlog: Self.clientBacklog) else {
                    // Refused the WebSocket way: the upgrade, then a close with 1013 (try again later).
                    logger.warning("Signal K stream client \(peer) refused: \(configuration.maximumClients) clients already connected")
                    return .upgrade([:]) { _, outbound, _ in
                        try await outbound.close(.unknown(1013), reason: "\(configuration.maximumClients) clients already connected")
                    }
                }
                // Its slot is freed when the connection closes, whether or not the upgrade completed.
                channel.closeFuture.whenComplete { _ in hub.removeClient(id) }
                // A small kernel buffer, so that a client that stops reading is seen soon and holds
                // little (Linux would otherwise let the buffer grow to megabytes).
                try? await channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.socketSendBuffer).get()
                logger.info("Signal K stream client \(peer) connected")
                let session = SignalKClientSession(id: id, hub: hub, channel: channel, logger: logger, peer: peer)
                return .upgrade([:]) { inbound, outbound, _ in
                    defer { logger.info("Signal K stream client \(peer) disconnected") }
                    try await session.run(
                        events: events, inbound: inbound, outbound: outbound, initial: initial,
                        subscriptionLimit: configuration.maximumSubscriptions
                    )
                }
            }, guardian: guardian)
            },
            configuration: .init(
                address: .hostname(configuration.address.host, port: configuration.address.port),
                serverName: "headingd/\(Headingd.version)"
                // Every connection is accepted: the guard closes the oldest idle one to make room
                // (a crowd waiting in the backlog would wait behind slow clients).
            ),
            logger: logger
        )
        logger.notice("Signal K on \(configuration.address) as vessels.\(configuration.selfURN)")
        do {
            // On shutdown the stream sessions end first (their queues finish), so that the server
            // is not left waiting for clients that would never go.
            try await withGracefulShutdownHandler {
                try await application.run()
            } onGracefulShutdown: { [hub] in
                hub.stop()
            }
        } catch let error as IOError {
            throw OutputOpenError.cannotListen("Signal K output", on: configuration.address, String(cString: strerror(error.errnoCode)))
        }
    }

    /// What `?subscribe=` asks for: `self` (the default), `all`, or `none`.
    static func initialSubscription(_ path: String) -> SignalKClientSession.InitialSubscription {
        guard let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return .selfVessel }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.first == "subscribe", let value = parts.dropFirst().first {
                return SignalKClientSession.InitialSubscription(rawValue: String(value)) ?? .selfVessel
            }
        }
        return .selfVessel
    }

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        let hub = hub
        let maximumClients = configuration.maximumClients
        let fallbackAuthority = configuration.address.description
        router.get("signalk") { request, _ -> Response in
            Self.json(SignalKDeltaEncoder.discovery(authority: Self.authority(of: request) ?? fallbackAuthority, serverVersion: Headingd.version))
        }
        router.get("signalk/v1/stream") { _, _ -> Response in
            hub.clientCount >= maximumClients
                ? Self.error(.serviceUnavailable, "\(maximumClients) stream clients already connected")
                : Self.error(.upgradeRequired, "the Signal K stream is a WebSocket: connect with Upgrade: websocket")
        }
        let api: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let components = request.uri.path.split(separator: "/").dropFirst(3).map { $0.removingPercentEncoding ?? String($0) }
            guard let json = hub.render(subPath: components) else {
                return Self.error(.notFound, "no such path: \(components.joined(separator: "/"))")
            }
            return Self.json(json)
        }
        if let metrics = configuration.metrics {
            router.get("metrics") { _, _ -> Response in HTTPOutput.response(metrics) }
        }
        configuration.status?.add(to: router)
        configuration.history?.add(to: router)
        router.get("signalk/v1/api", use: api)
        router.get("signalk/v1/api/**", use: api)
        router.refuseWrites { Self.error(.methodNotAllowed, "headingd is read-only") }
        return router
    }

    /// The `Host` the client used, when it is a plain `host[:port]`.
    private static func authority(of request: Request) -> String? {
        guard let host = request.head.authority, !host.isEmpty, host.utf8.count <= 255,
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) })
        else { return nil }
        return host
    }

    private static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let body = "{\"statusCode\":\(status.code),\"message\":\(JSONText.quoted(message))}"
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

