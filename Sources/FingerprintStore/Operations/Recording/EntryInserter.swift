import Foundation
package import Positioning

/// Inserts fingerprints and their entries, about 16 entries per fingerprint and tens of thousands of
/// fingerprints per survey. Each engine gives its own (``SQLTransaction/entryInserter()``): SQLite's binds
/// through SQLite's API (``SQLiteEntryInserter``), PostgreSQL's goes through the seam (``SeamEntryInserter``).
package protocol EntryInserting {
    /// Inserts one fingerprint row and returns its id.
    func insertFingerprint(spot: Int64, session: Int64, device: String, time: Double, sampleCount: Int) async throws -> Int64
    /// Inserts a fingerprint's entries with multi-row statements: several times faster than a statement
    /// per entry.
    func insertEntries(of fingerprint: Fingerprint, id: Int64, beaconRows: [BeaconID: Int64]) async throws
}

/// The entry inserts through the seam (SQLite's own inserter prepares its forms, ``SQLiteEntryInserter``).
enum EntryInserter {
    /// At most 150 rows (900 parameters) per statement: under any SQLite's limit on parameters.
    static let maximumRowsPerStatement = 150

    /// The multi-row insert of `rows` entries (fingerprint, beacon, relative power, dispersion, mean RSSI,
    /// visibility) through the seam.
    static func entries(_ rows: some Sequence<[SQLValue]>) -> SQLStatement {
        "INSERT INTO fingerprintEntry (fingerprintId, beaconId, relativePower, dispersion, meanRSSI, visibility) VALUES \(rows: rows)"
    }
}

/// The inserter of an engine without a faster way: multi-row statements through ``SQLTransaction``.
struct SeamEntryInserter: EntryInserting {
    let transaction: any SQLTransaction

    func insertFingerprint(spot: Int64, session: Int64, device: String, time: Double, sampleCount: Int) async throws -> Int64 {
        try await transaction.insertReturningID(
            "INSERT INTO fingerprint (spotId, sessionId, device, time, sampleCount) VALUES (\(spot), \(session), \(device), \(time), \(sampleCount))")
    }

    func insertEntries(of fingerprint: Fingerprint, id: Int64, beaconRows: [BeaconID: Int64]) async throws {
        var remaining = fingerprint.entries.count
        var entries = fingerprint.entries.makeIterator()
        while remaining > 0 {
            let rows = min(remaining, EntryInserter.maximumRowsPerStatement)
            var values: [[SQLValue]] = []
            values.reserveCapacity(rows)
            for _ in 0..<rows {
                let (beacon, entry) = entries.next()!
                values.append([
                    .integer(id), .integer(beaconRows[beacon]!), .real(Double(entry.relativePower)), .real(entry.dispersion),
                    .real(entry.meanRSSI), .real(entry.visibility),
                ])
            }
            try await transaction.execute(EntryInserter.entries(values))
            remaining -= rows
        }
    }
}
