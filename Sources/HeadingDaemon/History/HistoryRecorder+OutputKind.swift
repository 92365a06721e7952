// headingd
// SPDX-License-Identifier: Apache-2.0

import ServiceLifecycle

extension HistoryRecorder: OutputKind {
    typealias Settings = HistoryStore

    static func settings(in settings: DaemonSettings, history: HistoryStore?) -> HistoryStore? { history }

    static func name(of settings: HistoryStore) -> String { "history in \(settings.file ?? "memory")" }

    static func open(_ settings: HistoryStore, in context: OutputContext) async throws -> any Service {
        HistoryRecorder(history: try settings.open(logger: context.logger), center: context.fanOut, logger: context.logger)
    }
}
