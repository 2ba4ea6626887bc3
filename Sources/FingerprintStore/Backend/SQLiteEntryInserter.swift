import Foundation
import GRDB
import GRDBSQLite
import Positioning

/// SQLite's inserter of fingerprints and their entries: binds through SQLite's API, bypassing GRDB's
/// `StatementArguments`, which box every value and cost more than the inserts themselves. The statements
/// are GRDB's (prepared, cached and finalized by it) and run inside GRDB's transaction; nothing observes
/// these tables, so GRDB's execution hooks have nothing to do.
struct SQLiteEntryInserter: EntryInserting {
    let db: Database
    /// Whether the connection is still the transaction's: checked before each insert.
    let lease: ConnectionLease
    private let fingerprintStatement: Statement

    init(_ db: Database, lease: ConnectionLease) throws {
        self.db = db
        self.lease = lease
        fingerprintStatement = try db.cachedStatement(sql: Self.fingerprintSQL)
    }

    /// SQLite's prepared forms, `?` its parameter markers.
    private static let fingerprintSQL = "INSERT INTO fingerprint (spotId, sessionId, device, time, sampleCount) VALUES (?, ?, ?, ?, ?)"

    /// The multi-row insert for `rows` entries, built once per row count.
    private static let entrySQLByRows: [String] = (0...EntryInserter.maximumRowsPerStatement).map { rows in
        "INSERT INTO fingerprintEntry (fingerprintId, beaconId, relativePower, dispersion, meanRSSI, visibility) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// Inserts one fingerprint row and returns its id.
    func insertFingerprint(spot: Int64, session: Int64, device: String, time: Double, sampleCount: Int) throws -> Int64 {
        try lease.check()
        let sqlite = fingerprintStatement.sqliteStatement
        sqlite3_reset(sqlite)
        sqlite3_bind_int64(sqlite, 1, spot)
        sqlite3_bind_int64(sqlite, 2, session)
        sqlite3_bind_double(sqlite, 4, time)
        sqlite3_bind_int64(sqlite, 5, Int64(sampleCount))
        // SQLITE_STATIC (nil): SQLite reads the text during the step, while the pointer is valid, and the
        // binding is cleared before the pointer goes away.
        var device = device
        let code = device.withUTF8 { text in
            text.withMemoryRebound(to: CChar.self) { text in
                sqlite3_bind_text(sqlite, 3, text.baseAddress, Int32(text.count), nil)
                defer { sqlite3_clear_bindings(sqlite) }
                return sqlite3_step(sqlite)
            }
        }
        try check(code, fingerprintStatement, db)
        return db.lastInsertedRowID
    }


    /// Inserts a fingerprint's entries with multi-row statements: several times faster than a statement
    /// per entry. Statements are cached by row count.
    func insertEntries(of fingerprint: Fingerprint, id: Int64, beaconRows: [BeaconID: Int64]) throws {
        try lease.check()
        var remaining = fingerprint.entries.count
        var entries = fingerprint.entries.makeIterator()
        while remaining > 0 {
            let rows = min(remaining, EntryInserter.maximumRowsPerStatement)
            let statement = try db.cachedStatement(sql: Self.entrySQLByRows[rows])
            let sqlite = statement.sqliteStatement
            sqlite3_reset(sqlite)
            var parameter: Int32 = 1
            for _ in 0..<rows {
                let (beacon, entry) = entries.next()!
                sqlite3_bind_int64(sqlite, parameter, id)
                sqlite3_bind_int64(sqlite, parameter + 1, beaconRows[beacon]!)
                sqlite3_bind_double(sqlite, parameter + 2, Double(entry.relativePower))
                sqlite3_bind_double(sqlite, parameter + 3, entry.dispersion)
                sqlite3_bind_double(sqlite, parameter + 4, entry.meanRSSI)
                sqlite3_bind_double(sqlite, parameter + 5, entry.visibility)
                parameter += 6
            }
            try check(sqlite3_step(sqlite), statement, db)
            remaining -= rows
        }
    }

    private func check(_ code: Int32, _ statement: Statement, _ db: Database) throws {
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: statement.sql)
        }
    }

}
