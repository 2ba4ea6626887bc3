package import Foundation
package import Logging

/// The database engines the store runs on: SQLite in one file (the embedded default), PostgreSQL for a
/// cluster of positiond replicas.
package enum StoreEngine: String, Hashable, Sendable {
    case sqlite
    case postgresql
}

/// A value bound into SQL or read out of it, the same on both engines.
package enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    package init(_ value: Int) { self = .integer(Int64(value)) }
    package init(_ value: Double) { self = .real(value) }
    package init(_ value: String) { self = .text(value) }
    package init(_ value: Data) { self = .blob(value) }
    package init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
}

/// One row of a result, its values in the query's column order, also found by column name.
package struct SQLRow: Sendable {
    package let columns: [String]
    package let values: [SQLValue]

    /// The value of `column`, found case-insensitively: PostgreSQL folds unquoted names to lower case,
    /// so the same SQL names `venueId` on SQLite and `venueid` on PostgreSQL.
    package subscript(_ column: String) -> SQLValue {
        let wanted = column.lowercased()
        return columns.firstIndex { $0.lowercased() == wanted }.map { values[$0] } ?? .null
    }

    /// Whether the row has `column` (case-insensitively, as ``subscript(_:)`` finds it).
    package func hasColumn(_ column: String) -> Bool {
        let wanted = column.lowercased()
        return columns.contains { $0.lowercased() == wanted }
    }

    /// The integer in `column`; an error naming the column when it holds anything else.
    package func integer(_ column: String) throws(StoreError) -> Int64 {
        guard case .integer(let value) = self[column] else { throw Self.mismatch(column, "an integer", self[column]) }
        return value
    }

    package func text(_ column: String) throws(StoreError) -> String {
        guard case .text(let value) = self[column] else { throw Self.mismatch(column, "text", self[column]) }
        return value
    }

    package func optionalText(_ column: String) throws(StoreError) -> String? {
        if case .null = self[column] { return nil }
        return try text(column)
    }

    package func real(_ column: String) throws(StoreError) -> Double {
        switch self[column] {
        case .real(let value): return value
        // SQLite keeps a REAL that has no fraction as an integer when the column's affinity allows it.
        case .integer(let value): return Double(value)
        case let other: throw Self.mismatch(column, "a number", other)
        }
    }

    private static func mismatch(_ column: String, _ expected: String, _ found: SQLValue) -> StoreError {
        .storageFault("the stored column '\(column)' should hold \(expected) but holds \(found)")
    }

    package init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }
}

/// A row of ``SQLTransaction/scan(_:argument:_:)``: two integers and three reals.
package struct ScannedRow {
    package var first: Int64
    package var second: Int64
    package var third: Double
    package var fourth: Double
    package var fifth: Double
}

/// One open transaction, on either engine: what the store's operations run their SQL in. A statement's
/// values are interpolated into it (``SQLStatement``) and bound by each engine's library.
///
/// What the engines do differently is a requirement here, implemented once per engine in Backend/, so that
/// the operations never ask which engine they run on.
package protocol SQLTransaction {
    var engine: StoreEngine { get }
    /// Runs a statement that returns no rows.
    func execute(_ statement: SQLStatement) async throws
    /// Runs a query and returns all its rows.
    func rows(_ statement: SQLStatement) async throws -> [SQLRow]
    /// Tells the other processes sharing the store that `channel` changed, when the transaction commits
    /// (never for a rollback); nothing where the engine cannot (SQLite: readers poll).
    func notify(channel: String, payload: String) async throws
    /// Runs a query of five columns (two integers, three reals), handing its rows over in chunks without
    /// building a row each: the hot scan of a venue's fingerprint entries.
    func scan(_ statement: SQLStatement, _ rows: (UnsafeBufferPointer<ScannedRow>) throws -> Void) async throws
    /// The dwell per zone of `venue`'s finished visits entered in `from..<to` and lasting at least
    /// `minimumVisit` seconds: count, nearest-rank median and p90 (visits' own durations), mean; by zone name.
    func zoneDwell(venue: String, from: Double, to: Double, minimumVisit: Double) async throws -> [ZoneDwell]
    /// Inserts fingerprints and their entries in bulk, as fast as the engine allows.
    func entryInserter() throws -> any EntryInserting
}

/// A transaction's body: the store's operations, written once for both engines. Asynchronous because
/// PostgreSQL's statements wait on the network; on SQLite it runs straight through on the connection's thread
/// (``ConnectionThreadExecutor``).
package typealias TransactionBody<T> = @Sendable (any SQLTransaction) async throws -> T

/// A database the store can open transactions on, without blocking a thread of Swift's concurrency pool or of
/// NIO's event loops: SQLite's run on GRDB's queues, PostgreSQL's on postgres-nio's client. A transaction whose
/// body throws is rolled back.
package protocol StoreBackend: Sendable {
    var engine: StoreEngine { get }
    /// Where the database is, for messages; never a credential.
    var location: String { get }
    /// A read-only transaction that sees one consistent state of the database.
    func read<T: Sendable>(_ body: @escaping TransactionBody<T>) async throws -> T
    /// A read-write transaction, committed when `body` returns, or rolled back when `dryRun` is set (what a
    /// dry run reports is then what the write would have done).
    func write<T: Sendable>(dryRun: Bool, _ body: @escaping TransactionBody<T>) async throws -> T
    /// A listener of the changes other processes notify; nil where the engine has none (SQLite).
    func listener(logger: Logger) -> StoreListener?
    /// Closes the connections gracefully once the transactions under way have finished.
    func close() async
}

extension StoreBackend {
    /// A read-write transaction, committed when `body` returns.
    package func write<T: Sendable>(_ body: @escaping TransactionBody<T>) async throws -> T {
        try await write(dryRun: false, body)
    }
}
