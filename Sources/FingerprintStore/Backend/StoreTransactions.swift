package import Foundation

extension FingerprintStore {
    /// A read transaction through the SQL seam, on either engine.
    package func sqlRead<T: Sendable>(_ body: @escaping TransactionBody<T>) async throws -> T {
        try await backend.read(body)
    }

    /// A write transaction through the SQL seam; on SQLite with its disk-full handling.
    package func sqlWrite<T: Sendable>(_ body: @escaping TransactionBody<T>) async throws -> T {
        try await backend.write(dryRun: false, body)
    }

    /// A write transaction through the SQL seam, committed, or rolled back when `dryRun` is set (what a dry
    /// run reports is what the write would have done).
    package func sqlTransaction<T: Sendable>(dryRun: Bool, _ body: @escaping TransactionBody<T>) async throws -> T {
        try await backend.write(dryRun: dryRun, body)
    }
}

extension SQLValue {
    /// A date as both engines store every time: seconds since the Unix epoch, to the millisecond.
    package init(_ date: Date) {
        self = .real(Self.storedPrecision(date).timeIntervalSince1970)
    }

    /// `date` to the millisecond the store keeps: what a read of it gives back, exactly.
    package static func storedPrecision(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(Int64((date.timeIntervalSince1970 * 1000).rounded())) / 1000)
    }

    package init(_ date: Date?) { self = date.map { SQLValue($0) } ?? .null }
}

extension SQLRow {
    /// The date in `column`, seconds since the Unix epoch as ``SQLValue/init(_:)-(Date)`` writes it.
    package func date(_ column: String) throws(StoreError) -> Date {
        Date(timeIntervalSince1970: try real(column))
    }

    package func optionalDate(_ column: String) throws(StoreError) -> Date? {
        if case .null = self[column] { return nil }
        return try date(column)
    }
}
