import Foundation
import GRDB
import GRDBSQLite

/// What SQLite does its own way (the requirements of ``SQLTransaction`` beyond statements).
extension SQLiteTransaction {
    /// SQLite has no notifications between processes: readers poll the revisions.
    func notify(channel: String, payload: String) async throws {}

    /// Stepped through SQLite's API (GRDB's rows box every value, and this is a revision reload's hot read),
    /// handed over 1,024 rows at a time from one buffer.
    func scan(_ query: SQLStatement, _ rows: (UnsafeBufferPointer<ScannedRow>) throws -> Void) async throws {
        let (sql, arguments) = query.questionMarked
        let db = try self.db
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(StatementArguments(arguments.map(\.databaseValue)))
        let sqlite = statement.sqliteStatement
        var chunk: [ScannedRow] = []
        chunk.reserveCapacity(1024)
        while true {
            let code = sqlite3_step(sqlite)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            chunk.append(ScannedRow(
                first: sqlite3_column_int64(sqlite, 0), second: sqlite3_column_int64(sqlite, 1), third: sqlite3_column_double(sqlite, 2),
                fourth: sqlite3_column_double(sqlite, 3), fifth: sqlite3_column_double(sqlite, 4)))
            if chunk.count == 1024 {
                try chunk.withUnsafeBufferPointer(rows)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { try chunk.withUnsafeBufferPointer(rows) }
    }

    func entryInserter() throws -> any EntryInserting {
        try SQLiteEntryInserter(db, lease: lease)
    }

    /// SQLite's dwell, with PostgreSQL's semantics exactly (visits of at least `minimumVisit`, to the
    /// fraction of a second; nearest-rank percentiles that are visits' own durations; the mean of the
    /// durations), read mostly from the histogram `zoneDwellDay`.
    ///
    /// The whole days of the period come from the histogram (durations in whole seconds, rounded down,
    /// with their exact totals): its bucket of the minimum loses the visits shorter than the minimum, and a
    /// percentile's bucket is opened to find the visit it falls on. The partial days at the period's ends
    /// come from the visits. Every visit read goes through the covering index (venueId, zone, duration,
    /// enteredAt).
    func zoneDwell(venue: String, from: Double, to: Double, minimumVisit: Double) async throws -> [ZoneDwell] {
        let firstDay = Int64((from / 86_400).rounded(.up)), endDay = Int64((to / 86_400).rounded(.down))
        let minimumBucket = Int64(minimumVisit.rounded(.down))
        // zone → whole seconds → (visits, total seconds), from the histogram.
        var histogram: [String: [Int64: (visits: Int64, total: Double)]] = [:]
        // zone → the durations of the partial days' visits.
        var loose: [String: [Double]] = [:]
        var raw: [(from: Double, to: Double)] = []
        let wholeDays = firstDay < endDay
        let (daysFrom, daysTo) = (Double(firstDay) * 86_400, Double(endDay) * 86_400)
        if wholeDays {
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT zone, seconds, SUM(visits), SUM(total) FROM zoneDwellDay WHERE venueId = ? AND day >= ? AND day < ?
                    AND seconds >= ? AND visits > 0 GROUP BY zone, seconds
                    """,
                arguments: [venue, firstDay, endDay, minimumBucket])
            while let row = try rows.next() {
                histogram[row[0] as String, default: [:]][row[1] as Int64] = (row[2] as Int64, row[3] as Double)
            }
            // The minimum's bucket holds visits shorter than the minimum when it is not a whole second.
            if Double(minimumBucket) < minimumVisit {
                let short = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT zone, COUNT(*), SUM(duration) FROM zoneVisit WHERE venueId = ? AND duration >= ? AND duration < ?
                        AND enteredAt >= ? AND enteredAt < ? GROUP BY zone
                        """,
                    arguments: [venue, Double(minimumBucket), minimumVisit, daysFrom, daysTo])
                while let row = try short.next() {
                    let zone = row[0] as String
                    guard let bucket = histogram[zone]?[minimumBucket] else { continue }
                    histogram[zone]![minimumBucket] = (bucket.visits - (row[1] as Int64), bucket.total - (row[2] as Double))
                }
            }
            if from < daysFrom { raw.append((from, daysFrom)) }
            if daysTo < to { raw.append((daysTo, to)) }
        } else {
            raw.append((from, to))
        }
        for part in raw {
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT zone, duration FROM zoneVisit WHERE venueId = ? AND duration >= ? AND enteredAt >= ? AND enteredAt < ?",
                arguments: [venue, minimumVisit, part.from, part.to])
            while let row = try rows.next() {
                loose[row[0] as String, default: []].append(row[1] as Double)
            }
        }
        var zones: [ZoneDwell] = []
        for zone in Set(histogram.keys).union(loose.keys).sorted() {
            // Every visit counted, by whole second: the histogram's buckets and the loose visits.
            var buckets = histogram[zone, default: [:]].filter { $0.value.visits > 0 }
            let extra = loose[zone, default: []].sorted()
            for duration in extra {
                let second = Int64(duration.rounded(.down))
                let known = buckets[second] ?? (0, 0)
                buckets[second] = (known.visits + 1, known.total + duration)
            }
            let ordered = buckets.sorted { $0.key < $1.key }
            let visits = ordered.reduce(0) { $0 + $1.value.visits }
            guard visits > 0 else { continue }
            // The rank-th shortest visit (1-based): found in its bucket, then among the bucket's own durations.
            func visit(rank: Int64) throws -> Double {
                var before: Int64 = 0
                for (second, bucket) in ordered {
                    guard before + bucket.visits >= rank else {
                        before += bucket.visits
                        continue
                    }
                    var durations = extra.filter { Int64($0.rounded(.down)) == second }
                    if wholeDays {
                        durations += try Double.fetchAll(
                            db,
                            sql: """
                                SELECT duration FROM zoneVisit WHERE venueId = ? AND zone = ? AND duration >= ? AND duration < ?
                                AND enteredAt >= ? AND enteredAt < ?
                                """,
                            arguments: [venue, zone, max(Double(second), minimumVisit), Double(second + 1), daysFrom, daysTo])
                    }
                    durations.sort()
                    let index = Int(rank - before) - 1
                    guard durations.indices.contains(index) else {
                        throw StoreError.storageFault("the dwell histogram of zone '\(zone)' of venue '\(venue)' disagrees with its visits")
                    }
                    return durations[index]
                }
                throw StoreError.storageFault("the dwell histogram of zone '\(zone)' of venue '\(venue)' counts fewer visits than asked for")
            }
            func rank(_ fraction: Double) -> Int64 { max(1, Int64((fraction * Double(visits)).rounded(.up))) }
            zones.append(ZoneDwell(
                zone: zone, visits: Int(visits), median: try visit(rank: rank(0.5)), p90: try visit(rank: rank(0.9)),
                mean: ordered.reduce(0) { $0 + $1.value.total } / Double(visits)))
        }
        return zones
    }
}
