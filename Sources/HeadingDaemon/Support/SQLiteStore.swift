// headingd
// SPDX-License-Identifier: Apache-2.0

import GRDB

/// headingd's SQLite files — the heading history, the MQTT journal — opened (or made) at a path,
/// or in memory, and brought to their newest schema by GRDB's `DatabaseMigrator`: a schema
/// changes by a new named migration, never by editing one a file may already have had. A write
/// that finds the file locked by another process waits up to 5 s for it.
enum SQLiteStore {
    /// Opens the database and migrates it.
    /// - Parameters:
    ///   - path: The file, or `nil` for a database in memory (kept for the process only).
    ///   - label: GRDB's label for its queue (seen in a debugger and in GRDB's errors).
    ///   - migrations: The schema's migrations, oldest first: each a name and its statements.
    /// - Throws: GRDB's error when the file cannot be opened or migrated (not SQLite, read-only).
    static func open(path: String?, label: String, migrations: [(name: String, sql: String)]) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = label
        // A reader of the file (an operator's sqlite3) makes a write wait, not fail.
        configuration.busyMode = .timeout(5)
        let database = try path.map { try DatabaseQueue(path: $0, configuration: configuration) } ?? DatabaseQueue(configuration: configuration)
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.name) { db in try db.execute(sql: migration.sql) }
        }
        try migrator.migrate(database)
        return database
    }
}
