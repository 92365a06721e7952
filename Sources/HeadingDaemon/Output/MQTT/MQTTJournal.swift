// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GRDB
import MosquittoClient

/// The MQTT output's on-board journal (SQLite through GRDB): every message that must not be lost
/// (a fault raised or cleared) is written here before it is published, and leaves only when the
/// broker has acknowledged it. After a link down for an hour, a broker restart or headingd's own
/// restart, what is left is published again, in order, each with its row's id (a subscriber that
/// sees an id twice has seen one change twice: QoS 1 is at least once).
///
/// Bounded: at most ``maximumRows`` rows and ``maximumAge`` old; past either, the oldest go first,
/// and the owner is told how many (it logs them).
final class MQTTJournal: Sendable {
    /// A journalled message.
    struct Entry: Sendable, Equatable {
        let id: Int64
        let message: MosquittoClient.Message
    }

    /// The most rows kept.
    let maximumRows: Int
    /// The oldest a row may be, in seconds.
    let maximumAge: Double
    private let database: DatabaseQueue

    /// Opens (or makes) the journal at `path`, or one in memory when `path` is `nil` (kept for the
    /// process only: said in the log by the owner).
    /// - Throws: GRDB's error when the file cannot be opened or is not a journal.
    init(path: String?, maximumRows: Int = 100_000, maximumAge: Double = 7 * 86_400) throws {
        self.maximumRows = maximumRows
        self.maximumAge = maximumAge
        // "IF NOT EXISTS": the files made before the migrator have the table already.
        database = try SQLiteStore.open(path: path, label: "mqtt-journal", migrations: [(
            "v1",
            """
            CREATE TABLE IF NOT EXISTS outbox (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                topic TEXT NOT NULL,
                payload BLOB NOT NULL,
                qos INTEGER NOT NULL,
                retain INTEGER NOT NULL,
                created REAL NOT NULL
            )
            """
        )])
    }

    /// Appends a message made from its row's id, and drops the oldest rows past the bounds.
    /// - Parameters:
    ///   - now: Now, in Unix seconds.
    ///   - make: The message, given its id.
    /// - Returns: The entry, and how many old rows were dropped to keep the bounds.
    func append(at now: Double = Date().timeIntervalSince1970, _ make: (Int64) -> MosquittoClient.Message) throws -> (Entry, dropped: Int) {
        try database.write { db in
            let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'") ?? 0
            let message = make(sequence + 1)
            try db.execute(
                sql: "INSERT INTO outbox (topic, payload, qos, retain, created) VALUES (?, ?, ?, ?, ?)",
                arguments: [message.topic, Data(message.payload), message.qos, message.retain ? 1 : 0, now]
            )
            let id = db.lastInsertedRowID
            try db.execute(sql: "DELETE FROM outbox WHERE created < ?", arguments: [now - maximumAge])
            var dropped = db.changesCount
            try db.execute(
                sql: "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox ORDER BY id DESC LIMIT -1 OFFSET ?)", arguments: [maximumRows]
            )
            dropped += db.changesCount
            return (Entry(id: id, message: message), dropped)
        }
    }

    /// The rows after row `id`, oldest first, at most `limit` of them.
    func pending(after id: Int64, limit: Int) throws -> [Entry] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, topic, payload, qos, retain FROM outbox WHERE id > ? ORDER BY id LIMIT ?", arguments: [id, Int64(clamping: limit)]
            ).map { row in
                let payload: Data = row["payload"]
                return Entry(
                    id: row["id"],
                    message: MosquittoClient.Message(topic: row["topic"], payload: Array(payload), qos: row["qos"], retain: row["retain"] != 0)
                )
            }
        }
    }

    /// Removes acknowledged rows, in one transaction (one commit for many acknowledgements: a
    /// commit a row drained a backlog at about 145 rows a second).
    func remove(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try database.write { db in
            let statement = try db.makeStatement(sql: "DELETE FROM outbox WHERE id = ?")
            for id in ids { try statement.execute(arguments: [id]) }
        }
    }

    /// How many rows wait.
    func count() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0 }
    }
}
