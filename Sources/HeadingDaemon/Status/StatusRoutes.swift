// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingOutputs
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization

/// The status service's routes, on whichever HTTP listener serves it (Signal K's, or
/// ``HTTPOutput``): the page at `/` with its style sheet and script, the report at
/// `/status.json`, and the report every ``eventInterval`` as server-sent events at
/// `/status/events` (at most ``maximumEventClients`` at once; each stream ends after
/// ``eventStreamLifetime``, and a browser's `EventSource` reconnects by itself).
struct StatusRoutes: Sendable {
    /// How often an event stream sends the report.
    static let eventInterval: Duration = .milliseconds(250)
    /// The most event streams at once; the next is answered 503.
    static let maximumEventClients = 16
    /// How long one event stream lasts before it ends (the browser reconnects).
    static let eventStreamLifetime: Duration = .seconds(600)

    let board: StatusBoard
    private let eventClients = EventClients()

    /// - Parameter board: What the routes show.
    init(board: StatusBoard) { self.board = board }

    /// Adds the routes to `router`.
    func add(to router: Router<BasicRequestContext>) {
        let board = board
        let clients = eventClients
        let shared = SharedStatusReport(board: board, maximumAge: Self.eventInterval / 2)
        router.get("/") { _, _ in Self.asset(StatusPage.html, type: "text/html; charset=utf-8") }
        router.get("favicon.svg") { _, _ in Self.asset(StatusPage.favicon, type: "image/svg+xml") }
        router.get("status.css") { _, _ in Self.asset(StatusPage.css, type: "text/css; charset=utf-8") }
        router.get("status.js") { _, _ in Self.asset(StatusPage.javaScript, type: "text/javascript; charset=utf-8") }
        router.get("status.json") { _, _ -> Response in
            var buffer = ByteBuffer()
            buffer.writeBytes(board.report().json())
            return Response(status: .ok, headers: Self.headers(type: "application/json"), body: .init(byteBuffer: buffer))
        }
        router.get("status/events") { _, _ -> Response in
            guard let slot = clients.enter() else {
                return Response(
                    status: .serviceUnavailable, headers: Self.headers(type: "text/plain; charset=utf-8"),
                    body: .init(byteBuffer: ByteBuffer(string: "\(Self.maximumEventClients) status streams already open\n"))
                )
            }
            return Response(status: .ok, headers: Self.headers(type: "text/event-stream"), body: .init { writer in
                // The slot is given back when the body is done with, written or not.
                withExtendedLifetime(slot) {}
                let end = ContinuousClock.now + Self.eventStreamLifetime
                // The browser waits a second before it reconnects (the default is 3).
                try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                while ContinuousClock.now < end, !Task.isCancelled, !Task.isShuttingDownGracefully {
                    var buffer = ByteBuffer(string: "data: ")
                    buffer.writeBytes(shared.json())
                    buffer.writeString("\n\n")
                    try await writer.write(buffer)
                    // A shutdown ends the wait, and the stream with it.
                    guard (try? await cancelWhenGracefulShutdown({ try await Task.sleep(for: Self.eventInterval) })) != nil else { break }
                }
                try await writer.finish(nil)
            })
        }
    }

    /// The headers every status response carries: its type, no caching, and the page's policy.
    static func headers(type: String) -> HTTPFields {
        [
            .contentType: type, .cacheControl: "no-store", .contentSecurityPolicy: StatusPage.contentSecurityPolicy,
            .init("X-Content-Type-Options")!: "nosniff", .init("Referrer-Policy")!: "no-referrer",
        ]
    }

    private static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: headers(type: type), body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The event streams open now.
    private final class EventClients: Sendable {
        private let count = Mutex(0)
        /// A slot, given back when it is released; `nil` when all are taken.
        func enter() -> Slot? {
            let entered = count.withLock { count in
                guard count < StatusRoutes.maximumEventClients else { return false }
                count += 1
                return true
            }
            return entered ? Slot(self) : nil
        }
        fileprivate func leave() { count.withLock { $0 -= 1 } }
    }

    /// One event stream's place among ``maximumEventClients``.
    private final class Slot: Sendable {
        private let clients: EventClients
        init(_ clients: EventClients) { self.clients = clients }
        deinit { clients.leave() }
    }
}
