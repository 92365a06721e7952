// headingd
// SPDX-License-Identifier: Apache-2.0

import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// headingd's own HTTP listener, for the metrics (`/metrics`, ``HeadingMetrics``) and the status
/// service (``StatusRoutes``) when the Signal K output is off (when it runs, they are routes on
/// its listener). The same HTTP defences as every headingd listener (``HTTPConnectionGuard``:
/// head timeout, idle timeout, connection cap, request size); read-only, like Signal K's.
final class HTTPOutput: Service, Sendable {
    /// Where, and with which defences.
    struct Configuration: Sendable {
        let address: ListenAddress
        var limits = HTTPLimits()
    }

    private let configuration: Configuration
    private let metrics: HeadingMetrics?
    private let status: StatusRoutes?
    private let logger: Logger

    /// - Parameters:
    ///   - configuration: Where to listen.
    ///   - metrics: The metrics to serve at `/metrics`, if they are on.
    ///   - status: The status service's routes, if it is on.
    ///   - logger: The listener's logger.
    init(configuration: Configuration, metrics: HeadingMetrics?, status: StatusRoutes?, logger: Logger) {
        self.configuration = configuration
        self.metrics = metrics
        self.status = status
        self.logger = logger
    }

    /// What the listener serves, for its log line.
    private var services: String {
        [metrics.map { _ in "metrics on http://\(configuration.address)/metrics" }, status.map { _ in "status page on http://\(configuration.address)/" }]
            .compactMap { $0 }.joined(separator: ", ")
    }

    /// The exposition as a response, with the `Content-Type` Prometheus requires.
    static func response(_ metrics: HeadingMetrics) -> Response {
        var buffer = ByteBuffer()
        buffer.writeBytes(metrics.exposition())
        return Response(status: .ok, headers: [.contentType: HeadingMetrics.contentType], body: .init(byteBuffer: buffer))
    }

    /// Checks that the address can be listened on, before the pipeline runs.
    /// - Throws: ``OutputOpenError`` naming the address and the system's reason.
    func bind() async throws(OutputOpenError) {
        if let reason = configuration.address.bindProbe() { throw OutputOpenError.cannotListen("HTTP listener", on: configuration.address, reason) }
    }

    /// Serves until shutdown.
    func run() async throws {
        let router = Router()
        if let metrics { router.get("metrics") { _, _ -> Response in Self.response(metrics) } }
        status?.add(to: router)
        router.refuseWrites {
            Response(status: .methodNotAllowed, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "headingd is read-only\n")))
        }
        let guardian = HTTPConnectionGuard(limits: configuration.limits, logger: logger)
        let idleTimeout = configuration.limits.idleTimeout
        let application = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GuardedChildChannel(
                    inner: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: .milliseconds(Int64(idleTimeout * 1000)))),
                    guardian: guardian
                )
            },
            configuration: .init(
                address: .hostname(configuration.address.host, port: configuration.address.port), serverName: "headingd/\(Headingd.version)"
            ),
            logger: logger
        )
        logger.notice("\(services)")
        do {
            try await application.run()
        } catch let error as IOError {
            throw OutputOpenError.cannotListen("HTTP listener", on: configuration.address, String(cString: strerror(error.errnoCode)))
        }
    }
}
