// headingd
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Reads the configuration again on SIGHUP. A configuration with an error is reported and the
/// running one is kept; a valid one is handed to headingd (``pendingSettings``), systemd hears
/// `RELOADING=1`, and this service returns, which ends the running service group so that
/// headingd starts a new one with the new settings (and the notifier says `READY=1` again).
final class ConfigurationReloader: Service, Sendable {
    private let load: @Sendable () throws(ConfigurationError) -> DaemonSettings
    private let notifySocket: NotifySocket?
    private let pending = Mutex<DaemonSettings?>(nil)

    /// Creates the reloader.
    /// - Parameters:
    ///   - notifySocket: systemd's socket, for `RELOADING=1`; `nil` when not under systemd.
    ///   - load: Loads every configuration layer again.
    init(notifySocket: NotifySocket?, load: @escaping @Sendable () throws(ConfigurationError) -> DaemonSettings) {
        self.notifySocket = notifySocket
        self.load = load
    }

    /// The settings a SIGHUP loaded, once one did.
    var pendingSettings: DaemonSettings? { pending.withLock { $0 } }

    /// Whether the group is ending for a reload (the notifier then does not say `STOPPING=1`).
    var isReloading: Bool { pendingSettings != nil }

    /// Waits for SIGHUP until a valid configuration is loaded or headingd shuts down.
    func run() async {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangups.cancelOnGracefulShutdown() {
            do throws(ConfigurationError) {
                let settings = try load()
                LineWriter.standardError.write("headingd: SIGHUP: configuration reloaded")
                pending.withLock { $0 = settings }
                notifySocket?.send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
                return
            } catch {
                LineWriter.standardError.write(
                    "headingd: SIGHUP: configuration not reloaded, the running one is kept: \(error)", priority: .error
                )
            }
        }
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
