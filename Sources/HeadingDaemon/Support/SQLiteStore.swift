// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GRDB
import Logging

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

    /// Opens a store at `path`, keeping headings flowing whatever the file's state: a file that
    /// cannot be opened or is damaged (not a database, corrupt, unreadable, of another schema)
    /// is moved aside (``DamagedFile``, logged as an error naming both paths) and a new one
    /// started; when that too fails (the state directory cannot be written), the store is kept
    /// in memory for this run, and the log says so. A file another process holds locked past the
    /// busy timeout is left alone: this run uses memory.
    /// - Parameters:
    ///   - path: The file, or `nil` for memory.
    ///   - what: What the store is, for the log ("history", "MQTT journal").
    ///   - logger: Where the move and the fallback are logged.
    ///   - open: Opens the store at a path, or in memory for `nil`.
    /// - Returns: The store, and the path it uses (`nil` in memory).
    /// - Throws: What `open(nil)` throws: only a store that cannot be made even in memory.
    static func opening<Store>(
        path: String?, what: String, logger: Logger, _ open: (String?) throws -> Store
    ) throws -> (store: Store, path: String?) {
        guard let path else { return (try open(nil), nil) }
        let firstError: any Error
        do {
            return (try open(path), path)
        } catch {
            firstError = error
        }
        if (firstError as? DatabaseError)?.resultCode == .SQLITE_BUSY || (firstError as? DatabaseError)?.resultCode == .SQLITE_LOCKED {
            logger.error("\(what): \(path) is locked by another process (\(firstError)); this run keeps the \(what) in memory")
            return (try open(nil), nil)
        }
        if FileManager.default.fileExists(atPath: path) {
            do {
                let aside = try DamagedFile.setAside(path)
                logger.error("\(what): cannot open \(path) (\(firstError)): moved aside to \(aside); a new \(what) is started")
                return (try open(path), path)
            } catch let failure as DamagedFile.Failure {
                logger.error("\(what): cannot open \(path) (\(firstError)), and \(failure); this run keeps the \(what) in memory")
            } catch {
                logger.error("\(what): cannot start a new \(path) (\(error)); this run keeps the \(what) in memory")
            }
        } else {
            logger.error("\(what): cannot make \(path) (\(firstError)); this run keeps the \(what) in memory")
        }
        return (try open(nil), nil)
    }
}
