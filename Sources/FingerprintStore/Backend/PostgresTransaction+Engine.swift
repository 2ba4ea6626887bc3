import Foundation

/// What PostgreSQL does its own way (the requirements of ``SQLTransaction`` beyond statements).
extension PostgresTransaction {
    /// `pg_notify`: delivered to the listening replicas when the transaction commits, never for a rollback.
    func notify(channel: String, payload: String) async throws {
        try await execute("SELECT pg_notify(\(channel), \(payload))")
    }

    func scan(_ statement: SQLStatement, _ rows: (UnsafeBufferPointer<ScannedRow>) throws -> Void) async throws {
        let scanned = try await self.rows(statement).map { found in
            let values = found.values
            guard let first = values[0].int64, let second = values[1].int64, let third = values[2].double,
                  let fourth = values[3].double, let fifth = values[4].double
            else { throw StoreError.storageFault("a row of a scan has a missing value") }
            return ScannedRow(first: first, second: second, third: third, fourth: fourth, fifth: fifth)
        }
        try scanned.withUnsafeBufferPointer(rows)
    }

    func entryInserter() throws -> any EntryInserting {
        SeamEntryInserter(transaction: self)
    }

    /// `percentile_disc` over the visits themselves; zones in byte order (`COLLATE "C"`), as SQLite sorts them.
    func zoneDwell(venue: String, from: Double, to: Double, minimumVisit: Double) async throws -> [ZoneDwell] {
        let rows = try await rows(
            """
            SELECT zone, COUNT(*) AS visits, AVG(duration) AS mean, percentile_disc(0.5) WITHIN GROUP (ORDER BY duration) AS median,
            percentile_disc(0.9) WITHIN GROUP (ORDER BY duration) AS p90 FROM zoneVisit
            WHERE venueId = \(venue) AND duration >= \(minimumVisit) AND enteredAt >= \(from) AND enteredAt < \(to)
            GROUP BY zone ORDER BY zone COLLATE "C"
            """)
        return try rows.map { row in
            ZoneDwell(
                zone: try row.text("zone"), visits: Int(try row.integer("visits")), median: try row.real("median"),
                p90: try row.real("p90"), mean: try row.real("mean"))
        }
    }
}
