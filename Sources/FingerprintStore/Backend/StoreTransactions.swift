import Foundation
import GRDB
import NIOPosix

extension FingerprintStore {
    /// A read transaction through the SQL seam, on either engine.
    func sqlRead<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try backend.read(body)
    }

    /// A write transaction through the SQL seam; on SQLite with the disk-full handling of ``write(_:)``.
    func sqlWrite<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        if backend.engine == .sqlite { return try write { db in try body(SQLiteTransaction(db: db)) } }
        return try backend.write(body)
    }

    /// A write transaction through the SQL seam, committed, or rolled back when `dryRun` is set (what a dry
    /// run reports is what the write would have done).
    func sqlTransaction<T>(dryRun: Bool, _ body: (any SQLTransaction) throws -> T) throws -> T {
        if backend.engine == .sqlite { return try transaction(dryRun: dryRun) { db in try body(SQLiteTransaction(db: db)) } }
        guard dryRun else { return try backend.write(body) }
        var result: T?
        do {
            try backend.write { transaction in
                result = try body(transaction)
                throw DryRunRollback()
            }
        } catch is DryRunRollback {}
        return result!
    }

    /// ``sqlRead(_:)`` without blocking a thread of Swift's concurrency pool: GRDB's reader queue on
    /// SQLite, NIO's blocking-work pool on PostgreSQL (whose transactions wait on the network).
    func sqlRead<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        if backend.engine == .sqlite { return try await writer.read { db in try body(SQLiteTransaction(db: db)) } }
        let backend = self.backend
        return try await NIOThreadPool.singleton.runIfActive { try backend.read(body) }
    }

    /// ``sqlWrite(_:)`` without blocking a thread of Swift's concurrency pool: GRDB's asynchronous write
    /// on SQLite (with the disk-full handling), NIO's blocking-work pool on PostgreSQL.
    func sqlWrite<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        if backend.engine == .sqlite { return try await write { db in try body(SQLiteTransaction(db: db)) } }
        let backend = self.backend
        return try await NIOThreadPool.singleton.runIfActive { try backend.write(body) }
    }
}

/// Thrown out of a dry run's transaction, so the backend rolls it back.
private struct DryRunRollback: Error {}

extension SQLValue {
    /// A date as both engines store every time: seconds since the Unix epoch, to the millisecond.
    init(_ date: Date) {
        self = .real(Self.storedPrecision(date).timeIntervalSince1970)
    }

    /// `date` to the millisecond the store keeps: what a read of it gives back, exactly.
    static func storedPrecision(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(Int64((date.timeIntervalSince1970 * 1000).rounded())) / 1000)
    }

    init(_ date: Date?) { self = date.map { SQLValue($0) } ?? .null }
}

extension SQLRow {
    /// The date in `column`, seconds since the Unix epoch as ``SQLValue/init(_:)-(Date)`` writes it.
    func date(_ column: String) throws(StoreError) -> Date {
        Date(timeIntervalSince1970: try real(column))
    }

    func optionalDate(_ column: String) throws(StoreError) -> Date? {
        if case .null = self[column] { return nil }
        return try date(column)
    }
}
