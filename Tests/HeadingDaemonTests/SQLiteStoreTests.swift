// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import MosquittoClient
import Testing

@testable import HeadingDaemon

/// The history and the MQTT journal under GRDB's migrator: a file made before it (the same
/// tables, no migration recorded) opens with its rows, the migration is recorded once, and a
/// file that is not SQLite is refused. The files are made by Python's sqlite3, not by headingd.
struct SQLiteStoreTests {
    static func sqlite(_ path: String, _ statements: String) async throws {
        let script = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()"
        let (status, _, errors) = try await Command.run("/usr/bin/python3", ["-c", script, path, statements])
        try #require(status == 0, "\(errors)")
    }

    static func rows(_ path: String, _ query: String) async throws -> String {
        let script = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchall())"
        return try await Command.run("/usr/bin/python3", ["-c", script, path, query]).output
    }

    @Test func aJournalMadeBeforeTheMigratorKeepsItsMessages() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-sqlite-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        try await Self.sqlite(path, """
            CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, payload BLOB NOT NULL,
                qos INTEGER NOT NULL, retain INTEGER NOT NULL, created REAL NOT NULL);
            INSERT INTO outbox (topic, payload, qos, retain, created) VALUES ('vessels/a/notifications/x', X'7B7D', 1, 1, \(Date().timeIntervalSince1970));
            """)
        for _ in 0..<2 {
            let journal = try MQTTJournal(path: path)
            let pending = try journal.pending(after: 0, limit: 10)
            #expect(pending.map(\.id) == [1] && pending.first?.message.topic == "vessels/a/notifications/x", "\(pending)")
        }
        #expect(try await Self.rows(path, "SELECT identifier FROM grdb_migrations").contains("[('v1',)]"))
    }

    @Test func aHistoryMadeBeforeTheMigratorKeepsItsSamples() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-sqlite-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history.sqlite").path
        let now = Date().timeIntervalSince1970
        try await Self.sqlite(path, """
            CREATE TABLE samples (time REAL PRIMARY KEY, headingTrue REAL, headingMagnetic REAL, source TEXT NOT NULL);
            CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, time REAL NOT NULL, kind TEXT NOT NULL,
                source TEXT NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL);
            CREATE INDEX events_time ON events (time);
            INSERT INTO samples VALUES (\(now), 1.5, 1.4, 'simulation');
            """)
        let history = try HeadingHistory(path: path, days: 1)
        #expect(try history.samples(from: now - 1, to: now + 1).map(\.headingTrue) == [1.5])
        #expect(try await Self.rows(path, "SELECT identifier FROM grdb_migrations").contains("[('v1',)]"))
    }

    @Test func aFileThatIsNotSQLiteIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-sqlite-\(UUID()).sqlite").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: (any Error).self) { try MQTTJournal(path: path) }
        #expect(throws: (any Error).self) { try HeadingHistory(path: path, days: 1) }
    }
}
