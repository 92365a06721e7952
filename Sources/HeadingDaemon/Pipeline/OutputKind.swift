// headingd
// SPDX-License-Identifier: Apache-2.0

import Logging
import ServiceLifecycle

/// An output as ``OutputSet`` runs it: the type declares which of the daemon's settings are its
/// own and opens its service from them, so that the set is a loop over the kinds and a new output
/// is one type and one line in ``OutputSet/kinds``. At most one of each kind runs; equal settings
/// keep a running one (its listener, its clients) across a reload.
protocol OutputKind: SendableMetatype {
    /// The output's own settings: equal settings, a kept output.
    associatedtype Settings: Equatable, Sendable

    /// The `output` label of its metrics and its name in the status report; `nil` for an output
    /// that has neither (the history, the bare HTTP listener).
    static var label: String? { get }
    /// Whether a changed one stops before the new one opens, rather than after: one MQTT client a
    /// vessel (a new connection would take the old one's session), one NAME on the NMEA 2000 bus.
    /// (One listening on the same address is stopped first too: ``address(of:)``.)
    static var isExclusive: Bool { get }

    /// Its settings in the daemon's, or `nil` when they ask for none.
    /// - Parameters:
    ///   - settings: The daemon's settings.
    ///   - history: The history store when the settings keep one (the recorder and Signal K share it).
    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> Settings?
    /// The output's name, for logs: `NMEA 0183 TCP output on 0.0.0.0:10110`.
    static func name(of settings: Settings) -> String
    /// The TCP address it listens on, if it listens: the same address cannot be listened on twice.
    static func address(of settings: Settings) -> ListenAddress?
    /// Makes the output and opens it (binds its listener, resolves its targets).
    /// - Throws: ``OutputOpenError``.
    static func open(_ settings: Settings, in context: OutputContext) async throws -> any Service
}

extension OutputKind {
    static var label: String? { nil }
    static var isExclusive: Bool { false }
    static func address(of settings: Settings) -> ListenAddress? { nil }
}

/// What an output opens with: made once by ``OutputSet``.
struct OutputContext {
    /// Where outputs hear headings and faults: the process's one typed fan-out.
    let fanOut: HeadingFanOut
    let metrics: HeadingMetrics
    /// What the status service shows.
    let status: StatusRoutes
    /// The NMEA 2000 buses, where the node says its address to the sources on its bus.
    let buses: NMEA2000Buses
    let logger: Logger
    /// The Signal K identity when the settings give none.
    let signalKSelf: () -> String
}

/// One kind's settings as read from the daemon's, its type erased for ``OutputSet``'s table.
struct OutputRequest: Sendable, Equatable {
    /// The kind's name (its type's).
    let kind: String
    /// The output's name, for logs.
    let name: String
    let address: ListenAddress?
    let isExclusive: Bool
    private let settings: any Equatable & Sendable
    private let opener: @Sendable (OutputContext) async throws -> any Service

    /// `kind`'s request for `settings`.
    init<Kind: OutputKind>(_ kind: Kind.Type, _ settings: Kind.Settings) {
        self.kind = String(describing: kind)
        name = Kind.name(of: settings)
        address = Kind.address(of: settings)
        isExclusive = Kind.isExclusive
        self.settings = settings
        opener = { context in try await Kind.open(settings, in: context) }
    }

    /// Opens the output.
    func open(in context: OutputContext) async throws -> any Service { try await opener(context) }

    static func == (left: OutputRequest, right: OutputRequest) -> Bool {
        left.kind == right.kind && Self.equal(left.settings, right.settings)
    }

    private static func equal<Value: Equatable>(_ left: Value, _ right: any Equatable) -> Bool {
        (right as? Value) == left
    }
}

/// An output kind as ``OutputSet`` loops over it.
struct OutputDeclaration: Sendable {
    /// The kind's name (its type's): the key of the running table.
    let kind: String
    /// ``OutputKind/label``.
    let label: String?
    /// Reads the kind's request from the daemon's settings.
    let request: @Sendable (DaemonSettings, HistoryStore?) -> OutputRequest?

    init<Kind: OutputKind>(_ kind: Kind.Type) {
        self.kind = String(describing: kind)
        label = Kind.label
        request = { settings, history in Kind.settings(in: settings, history: history).map { OutputRequest(Kind.self, $0) } }
    }
}
