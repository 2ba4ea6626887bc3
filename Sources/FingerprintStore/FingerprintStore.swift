import GRDB
public import Logging
import Foundation
import Synchronization

/// The deployment's single SQLite file: venues, beacons, spots, survey fingerprints, revisions.
///
/// One `FingerprintStore` owns one connection (a WAL-mode `DatabasePool` for files), opened once by the
/// executable and passed down. Every public operation is one transaction: a failed write leaves the
/// database exactly as it was.
public final class FingerprintStore: Sendable {
    /// The engine: SQLite's connection, or PostgreSQL's pool. Internal: the store's methods are the API, and
    /// its callers never see GRDB or postgres-nio (tests that inject faults reach it with `@testable import`).
    let backend: any StoreBackend
    /// The SQLite connection, for the tests that inject faults under the seam.
    private let sqlite: (any DatabaseWriter)?
    let logger: Logger
    /// The file of a store opened read-only (positiond's), whose own writes (history, survey sessions) go
    /// through their own writable connection, ``daemonConnection``, opened on first use.
    private let readOnlyPath: String?
    private let daemonConnection = Mutex<SQLiteBackend?>(nil)

    /// Where the database lives: its file's path (`:memory:` for ``inMemory(logger:)``), or a PostgreSQL
    /// URL without its password. For messages.
    public var path: String { backend.location }

    /// The SQLite connection under the seam, for tests that reach past it (faults, pragmas).
    ///
    /// - Throws: ``StoreError/storageFault(_:)`` on PostgreSQL, which has none.
    var writer: any DatabaseWriter {
        get throws(StoreError) {
            guard let sqlite else { throw StoreError.storageFault("a PostgreSQL store has no SQLite connection") }
            return sqlite
        }
    }

    /// Wraps a PostgreSQL store, migrating its schema to this build's version.
    init(postgres: PostgresBackend, logger: Logger) async throws {
        self.backend = postgres
        self.sqlite = nil
        self.logger = logger
        self.readOnlyPath = nil
        try await postgres.checkConnection()
        try await PostgresMigrations.migrate(postgres)
    }

    /// Wraps an open connection, migrating the schema to this build's version.
    ///
    /// - Throws: ``StoreError/newerSchema(path:unknownMigrations:)`` when the database was written by a
    ///   newer beaconfix; the file is left untouched.
    init(writer: any DatabaseWriter, logger: Logger, readOnlyPath: String? = nil) throws {
        self.backend = SQLiteBackend(writer: writer, logger: logger)
        self.sqlite = writer
        self.logger = logger
        self.readOnlyPath = readOnlyPath
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
    }


    /// Opens the store named by `location`: a PostgreSQL URL (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
    /// migrated to this build's schema), or a file path (``open(path:logger:)``, created if needed).
    ///
    /// - Throws: ``StoreError/cannotConnect(location:reason:)`` when PostgreSQL cannot be reached,
    ///   ``StoreError/invalidInput(_:)`` for a malformed URL, and the errors of ``open(path:logger:)``.
    public static func open(location: String, logger: Logger) async throws -> FingerprintStore {
        if let url = try PostgresLocation(url: location) {
            return try await FingerprintStore(postgres: PostgresBackend(url: url, logger: logger), logger: logger)
        }
        return try open(path: location, logger: logger)
    }

    /// Opens the store named by `location` for a process that only reads it (positiond): a PostgreSQL URL,
    /// or a file path opened by ``openForReading(path:logger:)``.
    public static func openForReading(location: String, logger: Logger) async throws -> FingerprintStore {
        if let url = try PostgresLocation(url: location) {
            return try await FingerprintStore(postgres: PostgresBackend(url: url, logger: logger), logger: logger)
        }
        return try openForReading(path: location, logger: logger)
    }

    /// Closes the store's connections gracefully: on PostgreSQL, its pool (a ServiceLifecycle service)
    /// lets the transactions under way finish and then closes every connection, where a process that just
    /// exits leaves the server to find them gone. Operations asked for afterwards fail. A SQLite file is
    /// closed when the store goes.
    public func close() async {
        await backend.close()
    }

    /// Whether `location` names a PostgreSQL store rather than a file (without connecting).
    public static func isServer(location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    /// Whether this store is shared by several processes on a database server (PostgreSQL), whose changes
    /// arrive as notifications, rather than one SQLite file.
    public var isShared: Bool { backend.engine == .postgresql }

    /// Opens (creating if needed) the database file at `path` as a WAL-mode `DatabasePool`.
    public static func open(path: String, logger: Logger) throws -> FingerprintStore {
        let pool = try opening(path) { try DatabasePool(path: path, configuration: Self.configuration) }
        return try FingerprintStore(writer: pool, logger: logger)
    }

    /// Opens the database file at `path` for a process that only reads it (positiond): read-only when its
    /// schema is current, so that opening takes no write lock and waits for no writer (`survey record` may
    /// hold a long write transaction while the daemon restarts); read-write, to migrate it, otherwise.
    ///
    /// - Throws: ``StoreError/missingDatabase(path:)`` when there is no file at `path` (a reader never
    ///   creates an empty database), ``StoreError/newerSchema(path:unknownMigrations:)``, or SQLite's error.
    public static func openForReading(path: String, logger: Logger) throws -> FingerprintStore {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.missingDatabase(path: path) }
        var configuration = Self.configuration
        configuration.readonly = true
        let reader = try opening(path) { try DatabasePool(path: path, configuration: configuration) }
        let current = try opening(path) { try reader.read { try StoreMigrations.migrator.hasCompletedMigrations($0) } }
        guard current else {
            try reader.close()
            return try open(path: path, logger: logger)
        }
        return try FingerprintStore(writer: reader, logger: logger, readOnlyPath: path)
    }

    /// A write transaction for what the daemon itself writes: the visitor history, survey sessions posted
    /// over HTTP and the tuning after their commit. A store opened read-only writes them through a
    /// connection of its own, opened on first use (everything else stays read-only to the daemon); any
    /// other store uses its writer.
    func daemonWrite<T: Sendable>(_ body: @escaping TransactionBody<T>) async throws -> T {
        try await daemonTransaction(dryRun: false, body)
    }

    /// ``daemonWrite(_:)``, rolled back when `dryRun` is set.
    func daemonTransaction<T: Sendable>(dryRun: Bool, _ body: @escaping TransactionBody<T>) async throws -> T {
        guard let readOnlyPath else { return try await sqlTransaction(dryRun: dryRun, body) }
        return try await daemonBackend(readOnlyPath).write(dryRun: dryRun, body)
    }

    /// The read-only store's own connection for the daemon's writes, opened on first use.
    private func daemonBackend(_ readOnlyPath: String) throws -> SQLiteBackend {
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
