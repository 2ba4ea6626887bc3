import GRDB
import GRDBSQLite
public import Positioning

/// A venue's survey as of one revision: what the daemon and the CLI build a ``RadioMap`` from.
public struct VenueSurvey: Sendable {
    public var venue: VenueDetails
    /// The venue's spots; fingerprints point into this array.
    public var spots: [Spot]
    /// Reference fingerprints over active beacons only, relative powers recomputed among them.
    public var fingerprints: [(spot: Int, fingerprint: Fingerprint)]

    /// The revision this survey was read at.
    public var revision: Int { venue.revision }

    /// The dense radio map of this survey, in the `representation` of the metric that will read it.
    public func radioMap(representation: SignalRepresentation = .relativePower) throws(RadioMapError) -> RadioMap {
        try RadioMap(spots: spots, fingerprints: fingerprints, representation: representation)
    }
}

extension FingerprintStore {
    /// Reads a venue's survey in one read transaction, so the revision and the fingerprints agree.
    ///
    /// Entries of retired beacons are left out, and relative powers are recomputed with `scale` among
    /// the remaining beacons, as a live scan (which cannot hear a dead beacon) would compute them.
    /// Fingerprints left with no beacon are skipped.
    public func survey(of venueID: String, scale: any RelativePowerScale) throws -> VenueSurvey {
        try writer.read { db in
            let venue = try venueDetails(venueID, db)
            var spotIndex: [Int64: Int] = [:]
            let spotRows = try SpotRecord.filter(SpotRecord.Columns.venueId == venueID).order(SpotRecord.Columns.id).fetchAll(db)
            for (index, row) in spotRows.enumerated() { spotIndex[row.id!] = index }
            var beacons: [Int64: BeaconID] = [:]
            for (beacon, id) in try beaconIndex(venueID, db) { beacons[id] = beacon }

            var fingerprints: [(spot: Int, fingerprint: Fingerprint)] = []
            // The hot read of a revision reload: stepped through SQLite's API (GRDB's rows box every value).
            var fingerprintRows: [Int64: (spot: Int, samples: Int)] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT f.id, f.spotId, f.sampleCount FROM fingerprint f JOIN spot s ON s.id = f.spotId WHERE s.venueId = ?
                """, arguments: [venueID]) {
                fingerprintRows[row[0]] = (spotIndex[row[1]]!, row[2])
            }
            // Entries in primary-key order, so each fingerprint's are contiguous and SQLite need not sort.
            let statement = try db.makeStatement(sql: """
                SELECT e.fingerprintId, e.beaconId, e.meanRSSI, e.dispersion, e.visibility
                FROM fingerprintEntry e
                WHERE e.fingerprintId IN (SELECT f.id FROM fingerprint f JOIN spot s ON s.id = f.spotId WHERE s.venueId = ?)
                ORDER BY e.fingerprintId
                """)
            try statement.setArguments([venueID])
            let sqlite = statement.sqliteStatement
            var currentID: Int64?
            var currentSpot = 0, currentSamples = 0
            var entries: [(BeaconID, FingerprintEntry)] = []
            func flush() {
                guard currentID != nil, let strongest = entries.map(\.1.meanRSSI).max() else { return }
                var dictionary: [BeaconID: FingerprintEntry] = [:]
                dictionary.reserveCapacity(entries.count)
                for (beacon, var entry) in entries {
                    // Relative powers among the active beacons, as a live scan would compute them.
                    entry.relativePower = scale.relativePower(rssi: entry.meanRSSI, strongest: strongest)
                    dictionary[beacon] = entry
                }
                fingerprints.append((currentSpot, Fingerprint(entries: dictionary, sampleCount: currentSamples)))
            }
            while true {
                let code = sqlite3_step(sqlite)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
                let id = sqlite3_column_int64(sqlite, 0)
                if id != currentID {
                    flush()
                    entries.removeAll(keepingCapacity: true)
                    currentID = id
                    (currentSpot, currentSamples) = fingerprintRows[id]!
                }
                // Entries of retired beacons are left out (they have no identity in `beacons`).
                guard let beacon = beacons[sqlite3_column_int64(sqlite, 1)] else { continue }
                entries.append((beacon, FingerprintEntry(
                    relativePower: 0, meanRSSI: sqlite3_column_double(sqlite, 2), dispersion: sqlite3_column_double(sqlite, 3),
                    visibility: sqlite3_column_double(sqlite, 4))))
            }
            flush()
            return VenueSurvey(venue: venue, spots: spotRows.map(\.spot), fingerprints: fingerprints)
        }
    }
}
