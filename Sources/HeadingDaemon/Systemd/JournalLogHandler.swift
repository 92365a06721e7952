// headingd
// SPDX-License-Identifier: Apache-2.0

import Logging

/// swift-log's handler for headingd under journald: one line per message on standard error,
/// with the syslog priority prefix and without a timestamp of its own (journald adds its own).
struct JournalLogHandler: LogHandler {
    /// The logger's label, printed before the message.
    let label: String
    /// The lowest level printed.
    var logLevel: Logger.Level = .notice
    /// Metadata added to every message.
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let priority: LineWriter.Priority =
            switch event.level {
            case .trace, .debug, .info, .notice: .info
            case .warning: .warning
            case .error, .critical: .error
            }
        var text = "\(label): \(event.level): \(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if !merged.isEmpty { text += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
        LineWriter.standardError.write(text, priority: priority)
    }
}
