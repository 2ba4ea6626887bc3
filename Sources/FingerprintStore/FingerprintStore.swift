public import GRDB
public import Logging
import Foundation

/// The deployment's single SQLite file: venues, beacons, spots, survey fingerprints, revisions.
///
/// One `FingerprintStore` owns one connection (a WAL-mode `DatabasePool` for files), opened once by the
/// executable and passed down. Every public operation is one transaction: a failed write leaves the
/// database exactly as it was.
public final class FingerprintStore: Sendable {
    /// The connection. Exposed for tests and tools that need raw SQL; the store's methods are the API.
    public let writer: any DatabaseWriter
    let logger: Logger

    /// Wraps an open connection, migrating the schema to this build's version.
    ///
    /// - Throws: ``StoreError/newerSchema(path:unknownMigrations:)`` when the database was written by a
    ///   newer beaconfix; the file is left untouched.
    public init(writer: any DatabaseWriter, logger: Logger) throws {
        self.writer = writer
        self.logger = logger
        let migrator = StoreMigrations.migrator
        let unknown = try writer.read { db -> [String] in
            guard try migrator.hasBeenSuperseded(db) else { return [] }
            let known = Set(migrator.migrations)
            return try migrator.appliedIdentifiers(db).subtracting(known).sorted()
        }
        guard unknown.isEmpty else { throw StoreError.newerSchema(path: writer.path, unknownMigrations: unknown) }
        try migrator.migrate(writer)
        logger.debug("store ready", metadata: ["store.path": "\(writer.path)"])
    }

    /// Opens (creating if needed) the database file at `path` as a WAL-mode `DatabasePool`.
    public static func open(path: String, logger: Logger) throws -> FingerprintStore {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // The survey CLI may write while the daemon reads and checks revisions: wait rather than fail.
        configuration.busyMode = .timeout(10)
        configuration.label = "beaconfix"
        let pool = try DatabasePool(path: path, configuration: configuration)
        return try FingerprintStore(writer: pool, logger: logger)
    }

    /// A private in-memory database, for tests and one-off evaluations.
    public static func inMemory(logger: Logger = Logger(label: "beaconfix.store")) throws -> FingerprintStore {
        try FingerprintStore(writer: DatabaseQueue(), logger: logger)
    }

    /// The schema migrations this build knows, in order.
    public static var knownMigrations: [String] { StoreMigrations.migrator.migrations }
}
