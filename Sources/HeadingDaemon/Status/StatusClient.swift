// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingPorts
import NIOCore
import NIOHTTP1
import NIOPosix

/// Asks a running headingd for its ``StatusReport``: one `GET /status.json` over HTTP/1.1
/// (swift-nio's codec), bounded in time and size.
struct StatusClient: Sendable {
    /// Why no report came.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The listener's host and port.
    let host: String
    let port: Int
    /// How long the whole exchange may take.
    let timeout: Duration
    /// The largest report accepted, in bytes.
    static let maximumSize = 1 << 20

    /// The report.
    /// - Throws: ``Failure`` when nothing answers, the answer is not a report, or time runs out.
    func report() async throws(Failure) -> StatusReport {
        let body: ByteBuffer
        do {
            body = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
                group.addTask { try await fetch() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let body = first else {
                    throw Failure(description: "no answer from http://\(authority) within \(timeout)")
                }
                return body
            }
        } catch let failure as Failure {
            throw failure
        } catch let error as NIOConnectionError {
            let reason = (error.connectionErrors.first?.error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw Failure(description: "nothing answers at http://\(authority): \(reason)")
        } catch let error as IOError {
            throw Failure(description: "nothing answers at http://\(authority): \(String(cString: strerror(error.errnoCode)))")
        } catch {
            throw Failure(description: "http://\(authority): \(error)")
        }
        do {
            return try JSONDecoder().decode(StatusReport.self, from: Data(body.readableBytesView))
        } catch {
            throw Failure(description: "http://\(authority)/status.json is not a headingd status report (is the status service on there?)")
        }
    }

    private var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private func fetch() async throws -> ByteBuffer {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(timeout.pollMilliseconds)))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(NIOHTTPClientResponseAggregator(maxContentLength: Self.maximumSize))
                    return try NIOAsyncChannel<NIOHTTPClientResponseFull, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/status.json")
            head.headers.add(name: "Host", value: authority)
            head.headers.add(name: "Accept", value: "application/json")
            head.headers.add(name: "Connection", value: "close")
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            for try await response in inbound {
                guard response.head.status == .ok else {
                    throw Failure(description: "http://\(authority)/status.json answered \(response.head.status.code) \(response.head.status.reasonPhrase) (is the status service on there?)")
                }
                return response.body ?? ByteBuffer()
            }
            throw Failure(description: "http://\(authority) closed the connection without an answer")
        }
    }
}
