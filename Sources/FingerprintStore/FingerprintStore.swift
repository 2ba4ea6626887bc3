public import Logging
import Foundation
import Synchronization

/// The store of venues, beacons, spots, survey fingerprints and revisions, on a SQLite file or on a
/// cluster's PostgreSQL (docs/architecture.md).
///
/// One `FingerprintStore` owns one connection (a WAL-mode pool for a file, a client pool for PostgreSQL),
/// opened once by the executable and passed down. Every public operation is one transaction: a failed
/// write leaves the database exactly as it was. The engines live under `Backend/`, the only place that
/// imports GRDB or postgres-nio.
public final class FingerprintStore: Sendable {
    /// The engine: SQLite's connection, or PostgreSQL's pool. Not public: the store's methods are the API, and
    /// its callers never see GRDB or postgres-nio (tests that inject faults reach it through `package` access).
    package let backend: any StoreBackend
    /// The SQLite engine, for the tests that inject faults under the seam.
    let sqlite: SQLiteBackend?
    let logger: Logger
    /// The file of a store opened in the daemon's role (``StoreRole/daemon``): the survey is
    /// read-only to it, and its own writes (history, survey sessions) go through a writable connection,
    /// ``daemonConnection``, opened on first use.
    let readOnlyPath: String?
    let daemonConnection = Mutex<SQLiteBackend?>(nil)

    /// Where the database lives: its file's path (`:memory:` for ``inMemory(logger:)``), or a PostgreSQL
    /// URL without its password. For messages.
    public var path: String { backend.location }

    /// Wraps a PostgreSQL store, migrating its schema to this build's version.
    package convenience init(postgres: PostgresBackend, logger: Logger) async throws {
        try await postgres.checkConnection()
        try await PostgresMigrations.migrate(postgres)
        self.init(backend: postgres, sqlite: nil, logger: logger)
    }

    /// Wraps an engine whose schema is this build's (each engine's opening migrates it first).
    init(backend: any StoreBackend, sqlite: SQLiteBackend?, logger: Logger, readOnlyPath: String? = nil) {
        self.backend = backend
        self.sqlite = sqlite
        self.logger = logger
        self.readOnlyPath = readOnlyPath
    }

    /// Opens the store named by `location`: a PostgreSQL URL (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
    /// migrated to this build's schema), or a file path (``open(path:role:logger:)``).
    ///
    /// - Throws: ``StoreError/cannotConnect(location:reason:)`` when PostgreSQL cannot be reached,
    ///   ``StoreError/invalidInput(_:)`` for a malformed URL, and the errors of ``open(path:role:logger:)``.
    public static func open(location: String, role: StoreRole = .administration, logger: Logger) async throws -> FingerprintStore {
        if let url = try PostgresLocation(url: location) {
            // Every replica's writes are transactions of one shared server: the role changes nothing there.
            return try await FingerprintStore(postgres: PostgresBackend(url: url, logger: logger), logger: logger)
        }
        return try open(path: location, role: role, logger: logger)
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

    /// A write transaction for what the daemon itself writes: the visitor history, survey sessions posted
    /// over HTTP and the tuning after their commit. A store opened in the daemon's role writes them through a
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
}

/// What a process does with the store, which decides how a SQLite file is opened.
public enum StoreRole: Sendable {
    /// Reads and writes everything, creating the file when it is missing: the survey CLI, tools, tests.
    case administration
    /// positiond: the survey is read-only to it (opening takes no write lock and waits for no writer, so the
    /// daemon restarts while `survey record` holds a long write transaction), and it writes only its own
    /// records (visitor history, survey sessions posted over HTTP and their re-tuning, beacon health)
    /// through a connection of their own. A file whose schema is not current is opened read-write to migrate
    /// it; a missing file is an error, never an empty database.
    case daemon
}
