import GRDB
import GRDBSQLite
public import Positioning

/// A venue's survey as of one revision: what the daemon and the CLI build a ``RadioMap`` from.
public struct VenueSurvey: Sendable {
    public var venue: VenueDetails
    /// The venue's spots; fingerprints point into this array.
    public var spots: [Spot]
    /// Stored fingerprints over active beacons only, relative powers recomputed among them, in the order
    /// they were recorded, with their run, device and time.
    public var surveyed: [SurveyedFingerprint]
    /// The venue's tuning, read in the same transaction; nil when it was never tuned.
    public var tuning: StoredTuning?

    /// The revision this survey was read at.
    public var revision: Int { venue.revision }

    /// The stored fingerprints with their spots.
    public var fingerprints: [(spot: Int, fingerprint: Fingerprint)] { surveyed.map { ($0.spot, $0.fingerprint) } }

    /// The venue's positioning configuration: its tuning, or the untuned one.
    public var configuration: PositioningConfiguration {
        (tuning?.result.configuration ?? .untuned).positioning()
    }

    /// The dense radio map of this survey under `configuration`: stored fingerprints merged into its
    /// reference windows, laid out in its metric's representation.
    public func radioMap(configuration: PositioningConfiguration) throws(RadioMapError) -> RadioMap {
        try RadioMap(
            spots: spots, fingerprints: configuration.referenceWindow.references(of: surveyed, scale: configuration.builder.scale),
            representation: configuration.locator.metric.representation, zoneAreas: venue.zoneAreas)
    }

    /// The dense radio map of this survey under its own configuration (``configuration``).
    public func radioMap() throws(RadioMapError) -> RadioMap {
        try radioMap(configuration: configuration)
    }
}

extension FingerprintStore {
    /// Reads a venue's survey in one read transaction, so the revision and the fingerprints agree.
    ///
    /// Entries of retired beacons are left out, and relative powers are recomputed with `scale` among
    /// the remaining beacons, as a live scan (which cannot hear a dead beacon) would compute them.
    /// Fingerprints left with no beacon are skipped.
    public func survey(of venueID: String, scale: any RelativePowerScale) throws -> VenueSurvey {
        try writer.read { db in try loadSurvey(of: venueID, scale: scale, db) }
    }

    /// ``survey(of:scale:)`` without blocking a thread of Swift's concurrency pool while SQLite reads
    /// (GRDB runs the transaction on its own reader queue): what the daemon calls.
    public func survey(of venueID: String, scale: any RelativePowerScale) async throws -> VenueSurvey {
        try await writer.read { db in try self.loadSurvey(of: venueID, scale: scale, db) }
    }

    func loadSurvey(of venueID: String, scale: any RelativePowerScale, _ db: Database) throws -> VenueSurvey {
        do {
            let venue = try venueDetails(venueID, db)
            var spotIndex: [Int64: Int] = [:]
            let spotRows = try SpotRecord.filter(SpotRecord.Columns.venueId == venueID).order(SpotRecord.Columns.id).fetchAll(db)
            for (index, row) in spotRows.enumerated() { spotIndex[row.id!] = index }
            var beacons: [Int64: BeaconID] = [:]
            for (beacon, id) in try beaconIndex(venueID, db) { beacons[id] = beacon }

            var fingerprints: [SurveyedFingerprint] = []
            // The hot read of a revision reload: stepped through SQLite's API (GRDB's rows box every value).
            var fingerprintRows: [Int64: (spot: Int, samples: Int, run: Int, device: String, time: Double)] = [:]
            // A run: consecutive fingerprints (by id) of one spot, session and device.
            var previous: (spot: Int64, session: Int64, device: String)?
            var run = -1
            for row in try Row.fetchAll(db, sql: """
                SELECT f.id, f.spotId, f.sampleCount, f.sessionId, f.device, f.time
                FROM fingerprint f JOIN spot s ON s.id = f.spotId WHERE s.venueId = ? ORDER BY f.id
                """, arguments: [venueID]) {
                let key: (spot: Int64, session: Int64, device: String) = (row[1], row[3], row[4])
                if previous.map({ $0.spot != key.spot || $0.session != key.session || $0.device != key.device }) ?? true { run += 1 }
                previous = key
                fingerprintRows[row[0]] = (spotIndex[row[1]]!, row[2], run, key.device, row[5])
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
            var current: (spot: Int, samples: Int, run: Int, device: String, time: Double)?
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
                guard let current else { return }
                fingerprints.append(SurveyedFingerprint(
                    spot: current.spot, run: current.run, device: current.device, time: current.time,
                    fingerprint: Fingerprint(entries: dictionary, sampleCount: current.samples)))
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
                    current = fingerprintRows[id]!
                }
                // Entries of retired beacons are left out (they have no identity in `beacons`).
                guard let beacon = beacons[sqlite3_column_int64(sqlite, 1)] else { continue }
                entries.append((beacon, FingerprintEntry(
                    relativePower: 0, meanRSSI: sqlite3_column_double(sqlite, 2), dispersion: sqlite3_column_double(sqlite, 3),
                    visibility: sqlite3_column_double(sqlite, 4))))
            }
            flush()
            return VenueSurvey(venue: venue, spots: spotRows.map(\.spot), surveyed: fingerprints, tuning: try tuning(of: venueID, db))
        }
    }
}
