import Foundation
package import GRDB
public import Logging

/// Opening a store on a SQLite file: the connection settings, the migration on opening, and the daemon's
/// own connection for what it writes.
extension FingerprintStore {
    /// Wraps an open connection, migrating the schema to this build's version.
    ///
    /// - Throws: ``StoreError/newerSchema(path:unknownMigrations:)`` when the database was written by a
    ///   newer beaconfix; the file is left untouched.
    package convenience init(writer: any DatabaseWriter, logger: Logger, readOnlyPath: String? = nil) throws {
        let migrator = StoreMigrations.migrator
        let unknown = try writer.read { db -> [String] in
            guard try migrator.hasBeenSuperseded(db) else { return [] }
            let known = Set(migrator.migrations)
            return try migrator.appliedIdentifiers(db).subtracting(known).sorted()
        }
        guard unknown.isEmpty else { throw StoreError.newerSchema(path: writer.path, unknownMigrations: unknown) }
        // Migrating takes the write lock even when there is nothing to do: a database that is up to date is
        // only read, so a daemon starts while `survey record` holds a long write transaction.
        if try !writer.read({ try migrator.hasCompletedMigrations($0) }) {
            try migrator.migrate(writer)
        }
        logger.debug("store ready", metadata: ["store.path": "\(writer.path)"])
        let sqlite = SQLiteBackend(writer: writer, logger: logger)
        self.init(backend: sqlite, sqlite: sqlite, logger: logger, readOnlyPath: readOnlyPath)
    }

    /// The SQLite connection under the seam, for tests that reach past it (faults, pragmas).
    ///
    /// - Throws: ``StoreError/storageFault(_:)`` on PostgreSQL, which has none.
    package var writer: any DatabaseWriter {
        get throws(StoreError) {
            guard let sqlite else { throw StoreError.storageFault("a PostgreSQL store has no SQLite connection") }
            return sqlite.writer
        }
    }

    /// Opens the database file at `path` as a WAL-mode `DatabasePool`, in `role` (``StoreRole``): created if
    /// needed for ``StoreRole/administration``; read-only when its schema is current for ``StoreRole/daemon``.
    ///
    /// - Throws: ``StoreError/missingDatabase(path:)`` when a daemon finds no file at `path`,
    ///   ``StoreError/newerSchema(path:unknownMigrations:)``, ``StoreError/cannotOpen(path:reason:)``.
    public static func open(path: String, role: StoreRole = .administration, logger: Logger) throws -> FingerprintStore {
        switch role {
        case .administration:
            let pool = try opening(path) { try DatabasePool(path: path, configuration: Self.configuration) }
            return try FingerprintStore(writer: pool, logger: logger)
        case .daemon:
            guard FileManager.default.fileExists(atPath: path) else { throw StoreError.missingDatabase(path: path) }
            var configuration = Self.configuration
            configuration.readonly = true
            let reader = try opening(path) { try DatabasePool(path: path, configuration: configuration) }
            let current = try opening(path) { try reader.read { try StoreMigrations.migrator.hasCompletedMigrations($0) } }
            guard current else {
                try reader.close()
                return try open(path: path, role: .administration, logger: logger)
            }
            return try FingerprintStore(writer: reader, logger: logger, readOnlyPath: path)
        }
    }

    /// The daemon's own connection for its writes, opened on first use.
    func daemonBackend(_ readOnlyPath: String) throws -> SQLiteBackend {
        try daemonConnection.withLock { connection -> SQLiteBackend in
            if let connection { return connection }
            let queue = try Self.opening(readOnlyPath) { try DatabaseQueue(path: readOnlyPath, configuration: Self.configuration) }
            let opened = SQLiteBackend(writer: queue, logger: logger)
            connection = opened
            return opened
        }
    }

    /// `body`, with SQLite's "unable to open" and "not a database" turned into ``StoreError/cannotOpen(path:reason:)``.
    private static func opening<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where [.SQLITE_CANTOPEN, .SQLITE_NOTADB, .SQLITE_READONLY, .SQLITE_PERM].contains(error.resultCode) {
            throw StoreError.cannotOpen(path: path, reason: error.message ?? "SQLite error \(error.resultCode.rawValue)")
        }
    }

    /// The connection settings of every database file.
    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // The survey CLI may write while the daemon reads and checks revisions: wait rather than fail.
        configuration.busyMode = .timeout(10)
        configuration.label = "beaconfix"
        return configuration
    }

    /// A private in-memory database, for tests and one-off evaluations.
    public static func inMemory(logger: Logger = Logger(label: "beaconfix.store")) throws -> FingerprintStore {
        try FingerprintStore(writer: DatabaseQueue(), logger: logger)
    }

    /// The schema migrations this build knows, in order.
    public static var knownMigrations: [String] { StoreMigrations.migrator.migrations }
}
