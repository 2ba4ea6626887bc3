import Foundation
package import GRDB
package import Logging

/// The store on SQLite, through GRDB: the embedded default.
///
/// Transactions run on GRDB's queues through its asynchronous API (the caller's task waits without holding a
/// thread), and their bodies run on the connection's own thread (``ConnectionThreadExecutor``).
package struct SQLiteBackend: StoreBackend {
    let writer: any DatabaseWriter
    let logger: Logger

    package var engine: StoreEngine { .sqlite }
    package var location: String { writer.path }

    package func read<T: Sendable>(_ body: @escaping TransactionBody<T>) async throws -> T {
        try await writer.read { db in
            try ConnectionThreadExecutor.run(with: db) { db, lease in try await body(SQLiteTransaction(db, lease: lease)) }
        }
    }

    /// A write transaction (`BEGIN IMMEDIATE`), with one thing GRDB's own write lacks: when the disk fills up,
    /// the space the failed transaction took in the write-ahead log is given back before the error is thrown.
    /// Without that, the rolled-back frames keep the disk full, and the next process that opens the database
    /// (positiond restarting, `survey stats`) dies of SIGBUS when SQLite maps the shared-memory file it cannot
    /// grow.
    ///
    /// - Throws: ``StoreError/diskFull(path:)`` when the disk is full (nothing was written), or what `body` throws.
    package func write<T: Sendable>(dryRun: Bool, _ body: @escaping TransactionBody<T>) async throws -> T {
        // Committed frames still in the log are copied into the database first, while there is room: then a
        // transaction that fills the disk leaves only its own frames, which truncation simply drops.
        _ = try? await writer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        do {
            return try await writer.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try ConnectionThreadExecutor.run(with: db) { db, lease in try await body(SQLiteTransaction(db, lease: lease)) }
                    return dryRun ? .rollback : .commit
                }
                return result!
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            // The transaction is rolled back; truncating the log frees its frames (nothing committed is lost:
            // a checkpoint copies committed frames into the database before truncating).
            do {
                _ = try await writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            } catch {
                logger.warning("the write-ahead log could not be truncated after the disk filled up", metadata: ["error": "\(error)"])
            }
            throw StoreError.diskFull(path: writer.path)
        }
    }

    /// SQLite has no notifications between processes: readers poll the revisions.
    package func listener(logger: Logger) -> StoreListener? { nil }

    /// Nothing to do: GRDB closes the file when the last reference to its connection goes.
    package func close() async {}

    package init(writer: any DatabaseWriter, logger: Logger) {
        self.writer = writer
        self.logger = logger
    }
}

/// A GRDB connection inside one of its transactions.
struct SQLiteTransaction: SQLTransaction {
    private let connection: Database
    /// Whether the connection is still this transaction's (``ConnectionThreadExecutor``).
    let lease: ConnectionLease

    init(_ connection: Database, lease: ConnectionLease) {
        self.connection = connection
        self.lease = lease
    }

    /// The connection, checked to be still this transaction's before every use.
    var db: Database {
        get throws {
            try lease.check()
            return connection
        }
    }

    var engine: StoreEngine { .sqlite }

    func execute(_ statement: SQLStatement) async throws {
        let (sql, arguments) = statement.questionMarked
        try db.execute(sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
    }

    func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        let (sql, arguments) = statement.questionMarked
        let prepared = try db.makeStatement(sql: sql)
        let columns = prepared.columnNames
        return try Row.fetchAll(prepared, arguments: StatementArguments(arguments.map(\.databaseValue))).map { row in
            SQLRow(columns: columns, values: (0..<row.count).map { SQLValue(row[$0] as DatabaseValue) })
        }
    }
}

extension SQLValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let real): self = .real(real)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let data): data.databaseValue
        }
    }
}
