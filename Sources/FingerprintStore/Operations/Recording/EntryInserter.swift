import Foundation
import Positioning

/// Inserts fingerprints and their entries, about 16 entries per fingerprint and tens of thousands of
/// fingerprints per survey. Each engine gives its own (``SQLTransaction/entryInserter()``): SQLite's binds
/// through SQLite's API (``SQLiteEntryInserter``), PostgreSQL's goes through the seam (``SeamEntryInserter``).
protocol EntryInserting {
    /// Inserts one fingerprint row and returns its id.
    func insertFingerprint(spot: Int64, session: Int64, device: String, time: Double, sampleCount: Int) async throws -> Int64
    /// Inserts a fingerprint's entries with multi-row statements: several times faster than a statement
    /// per entry.
    func insertEntries(of fingerprint: Fingerprint, id: Int64, beaconRows: [BeaconID: Int64]) async throws
}

/// The statements both engines' inserters share.
enum EntryInserter {
    /// At most 150 rows (900 parameters) per statement: under any SQLite's limit on parameters.
    static let maximumRowsPerStatement = 150

    static let fingerprintSQL = "INSERT INTO fingerprint (spotId, sessionId, device, time, sampleCount) VALUES (?, ?, ?, ?, ?)"

    /// The multi-row insert for `rows` entries, built once per row count.
    private static let entrySQLByRows: [String] = (0...maximumRowsPerStatement).map { rows in
        "INSERT INTO fingerprintEntry (fingerprintId, beaconId, relativePower, dispersion, meanRSSI, visibility) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    static func entrySQL(rows: Int) -> String { entrySQLByRows[rows] }
}

/// The inserter of an engine without a faster way: multi-row statements through ``SQLTransaction``.
struct SeamEntryInserter: EntryInserting {
    let transaction: any SQLTransaction

    func insertFingerprint(spot: Int64, session: Int64, device: String, time: Double, sampleCount: Int) async throws -> Int64 {
        try await transaction.insertReturningID(
            EntryInserter.fingerprintSQL, [.integer(spot), .integer(session), .text(device), .real(time), SQLValue(sampleCount)])
    }

    func insertEntries(of fingerprint: Fingerprint, id: Int64, beaconRows: [BeaconID: Int64]) async throws {
        var remaining = fingerprint.entries.count
        var entries = fingerprint.entries.makeIterator()
        while remaining > 0 {
            let rows = min(remaining, EntryInserter.maximumRowsPerStatement)
            var arguments: [SQLValue] = []
            arguments.reserveCapacity(rows * 6)
            for _ in 0..<rows {
                let (beacon, entry) = entries.next()!
                arguments += [
                    .integer(id), .integer(beaconRows[beacon]!), .real(Double(entry.relativePower)), .real(entry.dispersion),
                    .real(entry.meanRSSI), .real(entry.visibility),
                ]
            }
            try await transaction.execute(EntryInserter.entrySQL(rows: rows), arguments)
            remaining -= rows
        }
    }
}
