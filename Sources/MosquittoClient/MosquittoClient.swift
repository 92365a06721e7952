// headingd — MosquittoClient
// SPDX-License-Identifier: Apache-2.0

import CMosquitto
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One MQTT connection through libmosquitto, the reference client library: connected, kept and
/// reconnected by a thread of its own (exponential backoff with jitter, ``Configuration/backoff``),
/// so that the caller never blocks on the network. libmosquitto's callbacks arrive on that thread
/// and are handed to ``Delegate`` there: never on the main actor.
///
/// `@unchecked Sendable`: the libmosquitto handle is used from the caller's threads
/// (``publish(topic:payload:qos:retain:)``) and the client's thread at once, which libmosquitto
/// allows when it is built with threading (Debian's is) and told so (`mosquitto_threaded_set`):
/// its own mutexes guard the handle's queues. The handle is reset between connections only under
/// `handleLock`, which publishing holds too. Everything of ours is behind ``state``, a `Mutex`,
/// but `library`, libmosquitto's functions: a `let`, set once when the first client loaded them.
public final class MosquittoClient: @unchecked Sendable {
    /// What the client says to its owner, on the client's thread.
    public protocol Delegate: AnyObject, Sendable {
        /// The broker accepted the connection.
        func mosquittoConnected(_ client: MosquittoClient)
        /// The connection ended, or an attempt failed; the client retries after `retryIn` seconds
        /// (`nil` when it was stopped).
        func mosquittoDisconnected(_ client: MosquittoClient, reason: String, retryIn: Double?)
        /// The broker acknowledged the QoS 1 message `messageID` (QoS 0: it was written).
        func mosquittoPublished(_ client: MosquittoClient, messageID: Int32)
    }

    /// Where and how to connect.
    public struct Configuration: Sendable {
        /// The broker's host and port.
        public var host: String
        public var port: Int
        /// The client identifier the broker knows this client by.
        public var clientID: String
        /// The keepalive in seconds: the broker publishes the will about 1.5 times this after it
        /// last heard from a client that vanished without closing its connection.
        public var keepalive: Int32 = 30
        /// The user name and password, if the broker wants them.
        public var username: String?
        public var password: String?
        /// TLS (1.2 or later), with the CA file that signs the broker's certificate, and the
        /// client's own certificate and key when the broker asks for one.
        public var tls: TLS?
        /// The last will: published by the broker when this client vanishes.
        public var will: Message?
        /// Seconds before the first retry, and the most between two.
        public var backoff: (first: Double, most: Double) = (1, 60)
        /// Seconds a connection attempt may take before it is given up.
        public var connectTimeout: Double = 10

        /// Creates a configuration.
        public init(host: String, port: Int, clientID: String) {
            self.host = host
            self.port = port
            self.clientID = clientID
        }
    }

    /// TLS settings.
    public struct TLS: Sendable, Equatable {
        public var caFile: String
        public var certificateFile: String?
        public var keyFile: String?
        public init(caFile: String, certificateFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    /// A message: topic, payload, QoS (0 or 1) and whether the broker retains it.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: Int32
        public var retain: Bool
        public init(topic: String, payload: [UInt8], qos: Int32, retain: Bool) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }
    }

    /// Why the client could not be made.
    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    private struct State {
        var isConnected = false
        var isStopped = false
    }

    /// The configuration.
    public let configuration: Configuration
    private let handle: OpaquePointer
    private let state = Mutex(State())
    private let ended = DispatchSemaphore(value: 0)
    /// Signalled by ``stop(within:)``: ends a backoff wait at once.
    private let wake = DispatchSemaphore(value: 0)
    private weak let delegate: (any Delegate)?

    /// libmosquitto's functions, loaded (and `mosquitto_lib_init` called) by the first client:
    /// a process that makes none never maps libmosquitto, libssl or libcrypto.
    private static let loaded: Result<cmosquitto_library, SetupError> = {
        var reason: UnsafePointer<CChar>?
        guard let library = cmosquitto_load(&reason) else {
            let why = reason.map { String(cString: $0) } ?? "cannot load libmosquitto.so.1"
            return .failure(SetupError(description: "needs libmosquitto (Debian's libmosquitto1), which cannot be loaded: \(why)"))
        }
        return .success(library.pointee)
    }()

    /// libmosquitto's functions.
    private let library: cmosquitto_library

    /// Makes the client (it connects once ``start()`` is called).
    /// - Throws: ``SetupError`` when libmosquitto cannot be loaded, or refuses a setting (a TLS
    ///   file it cannot read).
    public init(configuration: Configuration, delegate: any Delegate) throws(SetupError) {
        library = try Self.loaded.get()
        self.configuration = configuration
        self.delegate = delegate
        guard let handle = library.new(configuration.clientID, true, nil) else {
            throw SetupError(description: "libmosquitto could not make a client: \(String(cString: strerror(errno)))")
        }
        self.handle = handle
        try configure()
    }

    /// Sets every option and callback on the handle (after `mosquitto_new`, and after each
    /// `mosquitto_reinitialise`).
    private func configure() throws(SetupError) {
        let handle = handle
        let configuration = configuration
        library.user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        _ = library.threaded_set(handle, true)
        _ = library.int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        _ = library.max_inflight_messages_set(handle, 20)
        try check(library.username_pw_set(handle, configuration.username, configuration.password), "user name and password")
        if let tls = configuration.tls {
            try check(library.tls_set(handle, tls.caFile, nil, tls.certificateFile, tls.keyFile, nil), "TLS files")
            // Verify the broker's certificate and name; TLS 1.2 at least (libmosquitto negotiates up).
            try check(library.tls_opts_set(handle, 1, "tlsv1.2", nil), "TLS options")
            try check(library.tls_insecure_set(handle, false), "TLS host name check")
        }
        if let will = configuration.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                library.will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos, will.retain)
            }
            try check(rc, "last will")
        }
        library.connect_callback_set(handle) { _, object, code in
            guard let object else { return }
            Unmanaged<MosquittoClient>.fromOpaque(object).takeUnretainedValue().connected(code: code)
        }
        library.disconnect_callback_set(handle) { _, object, code in
            guard let object else { return }
            Unmanaged<MosquittoClient>.fromOpaque(object).takeUnretainedValue().disconnected(code: code)
        }
        library.publish_callback_set(handle) { _, object, messageID in
            guard let object else { return }
            let client = Unmanaged<MosquittoClient>.fromOpaque(object).takeUnretainedValue()
            client.delegate?.mosquittoPublished(client, messageID: messageID)
        }
    }

    deinit {
        library.destroy(handle)
    }

    private func check(_ code: Int32, _ what: String) throws(SetupError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw SetupError(description: "\(what): \(Self.text(library.strerror(code), orCode: code))")
        }
    }

    /// Whether the broker has accepted the connection and it has not ended since.
    public var isConnected: Bool { state.withLock { $0.isConnected } }

    /// Starts the client's thread: it connects, and reconnects until ``stop(within:)``.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "mqtt"
        thread.start()
    }

    /// Publishes a message (queued by libmosquitto, written by the client's thread).
    /// - Returns: The message's identifier (its acknowledgement names it), or `nil` when it could
    ///   not be queued (not connected: libmosquitto keeps nothing for a client that is not).
    @discardableResult
    public func publish(_ message: Message) -> Int32? {
        handleLock.withLock { _ -> Int32? in
            guard isConnected else { return nil }
            var messageID: Int32 = 0
            let rc = message.payload.withUnsafeBytes { bytes in
                library.publish(handle, &messageID, message.topic, Int32(bytes.count), bytes.baseAddress, message.qos, message.retain)
            }
            return rc == MOSQ_ERR_SUCCESS.rawValue ? messageID : nil
        }
    }

    /// Held to publish, and to reset the handle between connections: never both at once.
    private let handleLock = Mutex(())

    /// Disconnects (cleanly: the broker does not publish the will) and ends the client's thread,
    /// waiting for it at most `seconds` (a connection attempt stuck in DNS is left to end alone).
    public func stop(within seconds: Double) {
        let wasStopped = state.withLock { state in
            defer { state.isStopped = true }
            return state.isStopped
        }
        guard !wasStopped else { return }
        wake.signal()
        _ = library.disconnect(handle)
        _ = ended.wait(timeout: .now() + seconds)
    }

    // MARK: The client's thread

    private var isStopped: Bool { state.withLock { $0.isStopped } }

    private func run() {
        defer { ended.signal() }
        var delay = configuration.backoff.first
        var generator = SystemRandomNumberGenerator()
        while !isStopped {
            let failure = session()
            guard !isStopped else { break }
            // Exponential backoff with full jitter: a fleet that lost its broker together does
            // not come back together.
            let wait = Double.random(in: (delay / 2)...delay, using: &generator)
            delegate?.mosquittoDisconnected(self, reason: failure, retryIn: wait)
            sleep(seconds: wait)
            delay = min(configuration.backoff.most, delay * 2)
            if failure == Self.wasConnected { delay = configuration.backoff.first }
        }
        state.withLock { $0.isConnected = false }
        delegate?.mosquittoDisconnected(self, reason: "stopped", retryIn: nil)
    }

    /// Returned by ``session()`` after a connection that the broker had accepted.
    private static let wasConnected = "the connection to the broker ended"

    /// One connection: connects, then runs libmosquitto's loop until the connection ends.
    /// - Returns: Why it ended.
    private func session() -> String {
        // A clean handle each time: libmosquitto would otherwise resend the messages of the
        // connection that ended, beside the owner's own retries (its journal): twice each.
        let reset = handleLock.withLock { _ -> String? in
            let opaque = Unmanaged.passUnretained(self).toOpaque()
            guard library.reinitialise(handle, configuration.clientID, true, opaque) == MOSQ_ERR_SUCCESS.rawValue else {
                return "libmosquitto could not reset its client"
            }
            do { try configure() } catch { return "\(error)" }
            return nil
        }
        if let reset { return reset }
        let rc = library.connect_async(handle, configuration.host, Int32(configuration.port), configuration.keepalive)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return describe(rc) }
        let started = ContinuousClock.now
        var everConnected = false
        while !isStopped {
            let rc = library.loop(handle, 250, 1)
            if isConnected { everConnected = true }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                state.withLock { $0.isConnected = false }
                if let refusal = lastRefusal.withLock({ refusal in defer { refusal = nil }; return refusal }) {
                    return "the broker refused the connection: \(refusal)"
                }
                return everConnected ? Self.wasConnected : describe(rc)
            }
            if !everConnected, ContinuousClock.now - started > .milliseconds(Int64(configuration.connectTimeout * 1000)) {
                _ = library.disconnect(handle)
                return "no answer from \(configuration.host):\(configuration.port) within \(configuration.connectTimeout) s"
            }
        }
        // Stopped: let the DISCONNECT go out.
        for _ in 0..<4 where library.loop(handle, 50, 1) == MOSQ_ERR_SUCCESS.rawValue {}
        return "stopped"
    }

    /// libmosquitto's text for a code (which it always has; the code itself otherwise).
    private static func text(_ text: UnsafePointer<CChar>?, orCode code: Int32) -> String {
        text.map { String(cString: $0) } ?? "libmosquitto code \(code)"
    }

    private func describe(_ code: Int32) -> String {
        if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return Self.text(library.strerror(code), orCode: code)
    }

    private func connected(code: Int32) {
        guard code == 0 else {
            lastRefusal.withLock { $0 = Self.text(library.connack_string(code), orCode: code) }
            return
        }
        state.withLock { $0.isConnected = true }
        delegate?.mosquittoConnected(self)
    }

    /// The broker's reason for its last refusal (a bad password), for the next failure's message.
    private let lastRefusal = Mutex<String?>(nil)

    private func disconnected(code: Int32) {
        state.withLock { $0.isConnected = false }
    }

    /// Waits, waking at once when stopped.
    private func sleep(seconds: Double) {
        _ = wake.wait(timeout: .now() + seconds)
    }
}
