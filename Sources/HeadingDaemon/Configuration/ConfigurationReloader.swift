// headingd
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import ServiceLifecycle
import Synchronization

/// Reads the configuration again on SIGHUP. A configuration with an error is reported and the
/// running one is kept; a valid one is handed to headingd (``pendingSettings``), systemd hears
/// `RELOADING=1`, and this service ends the running service group so that headingd starts a new
/// one with the new settings (and the notifier says `READY=1` again). SIGHUP itself is watched for
/// the whole process by ``HangupSignals``.
final class ConfigurationReloader: Service, Sendable {
    private let load: @Sendable () throws(ConfigurationError) -> DaemonSettings
    private let notifySocket: NotifySocket?
    private let pending = Mutex<DaemonSettings?>(nil)
    private let hangups: HangupSignals
    private let endGroup: @Sendable () -> Void
    private let reloaded: @Sendable (Bool) -> Void

    /// Creates the reloader.
    /// - Parameters:
    ///   - hangups: The process's SIGHUPs, watched since it started.
    ///   - notifySocket: systemd's socket, for `RELOADING=1`; `nil` when not under systemd.
    ///   - endGroup: Ends the running service group (not headingd), once a configuration is pending.
    ///   - reloaded: Told of each SIGHUP's outcome: whether the configuration was valid.
    ///   - load: Loads every configuration layer again.
    init(
        hangups: HangupSignals, notifySocket: NotifySocket?, endGroup: @escaping @Sendable () -> Void,
        reloaded: @escaping @Sendable (Bool) -> Void = { _ in },
        load: @escaping @Sendable () throws(ConfigurationError) -> DaemonSettings
    ) {
        self.hangups = hangups
        self.endGroup = endGroup
        self.reloaded = reloaded
        self.notifySocket = notifySocket
        self.load = load
    }

    /// The settings a SIGHUP loaded, once one did.
    var pendingSettings: DaemonSettings? { pending.withLock { $0 } }

    /// Whether the group is ending for a reload (the notifier then does not say `STOPPING=1`).
    var isReloading: Bool { pendingSettings != nil }

    /// Waits for SIGHUP until a valid configuration is loaded or headingd shuts down.
    ///
    /// After a valid one it ends the group and waits for its own turn to stop rather than
    /// returning: a `systemctl reload` followed at once by a stop made it return during the
    /// stop, which ServiceLifecycle counts as a failure (headingd exited 1).
    func run() async {
        let reloaded = await cancelWhenGracefulShutdown {
            while await self.hangups.next() {
                if self.reload() { return true }
            }
            return false
        }
        guard reloaded else { return }
        endGroup()
        try? await gracefulShutdown()
    }

    /// Loads the configuration again. Returns whether it was valid (and is now pending).
    private func reload() -> Bool {
        do throws(ConfigurationError) {
            let settings = try load()
            LineWriter.standardError.write("headingd: SIGHUP: configuration reloaded")
            pending.withLock { $0 = settings }
            reloaded(true)
            notifySocket?.send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())", waitingAtMost: NotifySocket.essentialWait)
            return true
        } catch {
            LineWriter.standardError.write(
                "headingd: SIGHUP: configuration not reloaded, the running one is kept: \(error)", priority: .error
            )
            reloaded(false)
            return false
        }
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
