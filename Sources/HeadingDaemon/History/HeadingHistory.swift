// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GRDB

/// The heading's history on board (SQLite through GRDB): the heading at most once a second of the
/// headings' own time (a replay's history is the recording's), and every fault, recovery and
/// change of source, for ``days`` before the newest sample. Read by the Signal K History API
/// (``HistoryRoutes``).
final class HeadingHistory: Sendable {
    /// The paths kept, in Signal K's units (radians).
    static let paths = ["navigation.headingTrue", "navigation.headingMagnetic"]

    /// One second's sample.
    struct Sample: Sendable, Equatable {
        let time: Double
        let headingTrue: Double?
        let headingMagnetic: Double?
        let source: String
    }

    /// A fault, a recovery or a change of source.
    struct Event: Sendable, Equatable {
        let time: Double
        let kind: String
        let source: String
        let code: String
        let message: String
    }

    /// How many days before the newest sample are kept.
    let days: Double
    private let database: DatabaseQueue

    /// Opens (or makes) the history at `path`, or one in memory when `path` is `nil`.
    init(path: String?, days: Double) throws {
        self.days = days
        // "IF NOT EXISTS": the files made before the migrator have the tables already.
        database = try SQLiteStore.open(path: path, label: "history", migrations: [(
            "v1",
            """
            CREATE TABLE IF NOT EXISTS samples (
                time REAL PRIMARY KEY,
                headingTrue REAL,
                headingMagnetic REAL,
                source TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS events (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                time REAL NOT NULL,
                kind TEXT NOT NULL,
                source TEXT NOT NULL,
                code TEXT NOT NULL,
                message TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS events_time ON events (time);
            """
        )])
    }

    /// Writes samples and events, and forgets what is older than ``days`` before the newest sample.
    func write(samples: [Sample], events: [Event]) throws {
        try database.write { db in
            for sample in samples {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO samples (time, headingTrue, headingMagnetic, source) VALUES (?, ?, ?, ?)",
                    arguments: [sample.time, sample.headingTrue, sample.headingMagnetic, sample.source]
                )
            }
            for event in events {
                try db.execute(
                    sql: "INSERT INTO events (time, kind, source, code, message) VALUES (?, ?, ?, ?, ?)",
                    arguments: [event.time, event.kind, event.source, event.code, event.message]
                )
            }
            if let newest = try Double.fetchOne(db, sql: "SELECT MAX(time) FROM samples") {
                let cutoff = newest - days * 86_400
                try db.execute(sql: "DELETE FROM samples WHERE time < ?", arguments: [cutoff])
                try db.execute(sql: "DELETE FROM events WHERE time < ?", arguments: [cutoff])
            }
        }
    }

    /// The samples from `from` to `to` (inclusive), oldest first, at most `limit`.
    func samples(from: Double, to: Double, limit: Int = 1_000_000) throws -> [Sample] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT time, headingTrue, headingMagnetic, source FROM samples WHERE time >= ? AND time <= ? ORDER BY time LIMIT ?",
                arguments: [from, to, limit]
            ).map { Sample(time: $0["time"], headingTrue: $0["headingTrue"], headingMagnetic: $0["headingMagnetic"], source: $0["source"]) }
        }
    }

    /// The events from `from` to `to`, oldest first.
    func events(from: Double, to: Double) throws -> [Event] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT time, kind, source, code, message FROM events WHERE time >= ? AND time <= ? ORDER BY id", arguments: [from, to]
            ).map { Event(time: $0["time"], kind: $0["kind"], source: $0["source"], code: $0["code"], message: $0["message"]) }
        }
    }

    /// The paths with at least one value from `from` to `to`.
    func paths(from: Double, to: Double) throws -> [String] {
        try database.read { db in
            let hasTrue = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM samples WHERE time >= ? AND time <= ? AND headingTrue IS NOT NULL)", arguments: [from, to]) ?? false
            let hasMagnetic = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM samples WHERE time >= ? AND time <= ? AND headingMagnetic IS NOT NULL)", arguments: [from, to]) ?? false
            return [hasTrue ? Self.paths[0] : nil, hasMagnetic ? Self.paths[1] : nil].compactMap { $0 }
        }
    }
}

extension HeadingHistory {
    /// Calls `body` with every sample from `from` to `to`, oldest first, without holding them all.
    func forEachSample(from: Double, to: Double, _ body: (Sample) throws -> Void) throws {
        try database.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT time, headingTrue, headingMagnetic, source FROM samples WHERE time >= ? AND time <= ? ORDER BY time", arguments: [from, to]
            )
            while let row = try rows.next() {
                try body(Sample(time: row["time"], headingTrue: row["headingTrue"], headingMagnetic: row["headingMagnetic"], source: row["source"]))
            }
        }
    }
}
