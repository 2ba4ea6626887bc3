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
    /// A date as both engines store it: GRDB's UTC text, `2026-11-23 07:46:34.120`, so that files written
    /// before the seam read the same and the two engines hold identical values.
    init(_ date: Date) {
        // Whole milliseconds first, so 0.123 s (0.12299… in binary) is written .123, as GRDB writes it.
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(total / 1000)
        let milliseconds = Int(total % 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        self = .text(String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds))
    }

    /// `date` to the millisecond the engines keep: what a read of it gives back, exactly.
    static func storedPrecision(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(Int64((date.timeIntervalSince1970 * 1000).rounded())) / 1000)
    }

    init(_ date: Date?) { self = date.map { SQLValue($0) } ?? .null }
}

extension SQLRow {
    /// The date in `column`, written as ``SQLValue/init(_:)-(Date)`` writes it (fractions of a second optional).
    func date(_ column: String) throws(StoreError) -> Date {
        let text = try text(column)
        let fields = text.split(whereSeparator: { "-: T.Z".contains($0) }).map { Int($0) }
        guard fields.count >= 6, fields.allSatisfy({ $0 != nil }) else {
            throw .storageFault("the stored column '\(column)' should hold a date but holds '\(text)'")
        }
        var parts = tm()
        parts.tm_year = Int32(fields[0]! - 1900)
        parts.tm_mon = Int32(fields[1]! - 1)
        parts.tm_mday = Int32(fields[2]!)
        parts.tm_hour = Int32(fields[3]!)
        parts.tm_min = Int32(fields[4]!)
        parts.tm_sec = Int32(fields[5]!)
        // Milliseconds, as written; computed as storedPrecision computes them, so a date reads back exactly.
        let fraction = text.split(separator: ".").dropFirst().first.map { String($0.prefix { $0.isNumber }.prefix(3)) } ?? ""
        let milliseconds = Int64(fraction.padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0
        return Date(timeIntervalSince1970: Double(Int64(timegm(&parts)) * 1000 + milliseconds) / 1000)
    }

    func optionalDate(_ column: String) throws(StoreError) -> Date? {
        if case .null = self[column] { return nil }
        return try date(column)
    }
}
