// headingd
// SPDX-License-Identifier: Apache-2.0

/// How the HTTP listener defends itself, for every service on it (Signal K now; metrics and status
/// pages next): the `[http]` settings.
struct HTTPLimits: Equatable, Sendable {
    /// Seconds a connection has, from its opening or the end of its last response, to send a
    /// whole request head: a client trickling its headers (slowloris) is closed after it.
    var requestHeadTimeout = 5.0
    /// Seconds a connection may wait between requests with nothing sent.
    var idleTimeout = 30.0
    /// The most open connections. At the limit, a new connection closes the oldest one that is
    /// idle or still sending its head; when every one is busy (a request, a stream), the new one is
    /// closed instead.
    var maximumConnections = 128
    /// The largest request, head and body, in bytes: a larger one is answered 413 and closed.
    var maximumRequestSize = 65_536
}
