import Foundation
import GRDB
import GRDBSQLite
public import Positioning

/// How `record` turns a survey log into fingerprints.
public struct RecordOptions: Sendable {
    /// Consecutive samples of one device at one spot per fingerprint.
    public var windowSize: Int
    /// Who walked the venue, for the session's audit trail.
    public var `operator`: String?
    /// The file the samples came from.
    public var sourceFile: String?
    /// Beacons heard but unknown to the venue are added to it instead of being left out.
    public var addUnknownBeacons: Bool
    public var builder: FingerprintBuilder

    public init(
        windowSize: Int, operator: String? = nil, sourceFile: String? = nil, addUnknownBeacons: Bool = false,
        builder: FingerprintBuilder
    ) {
        self.windowSize = windowSize
        self.operator = `operator`
        self.sourceFile = sourceFile
        self.addUnknownBeacons = addUnknownBeacons
        self.builder = builder
    }
}

/// What `record` stored, and what the surveyor should look at.
public struct RecordSummary: Hashable, Sendable, Codable {
    public struct SpotCoverage: Hashable, Sendable, Codable {
        public var spot: String
        /// Fingerprints this run added.
        public var added: Int
        /// Fingerprints the spot has now, all runs included.
        public var total: Int
        /// Median number of beacons a fingerprint of the spot sees.
        public var medianBeacons: Int
    }

    public var venue: String
    public var samples: Int
    public var fingerprints: Int
    /// Samples in which no beacon was heard (skipped before windowing).
    public var emptySamples: Int
    /// Windows in which no reading survived cleaning.
    public var unusableWindows: Int
    public var cleaning: CleaningReport
    /// Readings of beacons the venue does not know (or has retired), per beacon.
    public var unknownBeaconReadings: [String: Int]
    /// Beacons added to the venue because `addUnknownBeacons` was set.
    public var beaconsAdded: [String]
    /// Spots created from the log's coordinates.
    public var spotsCreated: [String]
    public var spots: [SpotCoverage]
    /// Spots with fewer than 3 fingerprints or whose fingerprints see fewer than 3 beacons.
    public var spotsToRevisit: [String]
    public var revision: Int
}

extension FingerprintStore {
    /// Builds fingerprints from a survey log and stores them, all in one transaction.
    ///
    /// - Parameters:
    ///   - samples: the log's samples with their ground truth, in file order.
    ///   - progress: called now and then with (windows done, windows in all).
    /// - Throws: ``StoreError/unknownVenue(_:)``; nothing is written on any error.
    public func record(
        _ samples: [LabelledSample], into venueID: String, options: RecordOptions,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) throws -> RecordSummary {
        guard options.windowSize >= 1 else { throw StoreError.invalidInput("the window must hold at least 1 sample") }
        let summary = try writer.write { db -> RecordSummary in
            let venue = try venueDetails(venueID, db)
            var beaconRows = try beaconIndex(venueID, db)
            var spotRows: [String: Int64] = [:]
            for row in try SpotRecord.filter(SpotRecord.Columns.venueId == venueID).fetchAll(db) {
                spotRows[row.name] = row.id!
            }
            let levels = Set(venue.floors.map(\.level))

            var unknownReadings: [BeaconID: Int] = [:]
            var beaconsAdded: [BeaconID] = []
            var spotsCreated: [String] = []
            var kept: [LabelledSample] = []
            kept.reserveCapacity(samples.count)
            var emptySamples = 0
            for var labelled in samples {
                if labelled.sample.readings.isEmpty {
                    emptySamples += 1
                    continue
                }
                labelled.sample.readings.removeAll { reading in
                    if beaconRows[reading.beacon] != nil { return false }
                    if options.addUnknownBeacons, !unknownReadings.keys.contains(reading.beacon) {
                        beaconsAdded.append(reading.beacon)
                    }
                    unknownReadings[reading.beacon, default: 0] += 1
                    return !options.addUnknownBeacons
                }
                kept.append(labelled)
            }
            if options.addUnknownBeacons {
                for beacon in beaconsAdded {
                    var record = BeaconRecord(
                        id: nil, venueId: venueID, uuid: beacon.uuid.uuidString, major: Int(beacon.major),
                        minor: Int(beacon.minor), status: .active)
                    if let retired = try BeaconRecord.filter(BeaconRecord.Columns.venueId == venueID)
                        .filter(BeaconRecord.matching(beacon)).fetchOne(db)
                    {
                        throw StoreError.conflict(
                            "beacon \(beacon) is \(retired.status.rawValue) in venue '\(venueID)'; it cannot be added back by recording")
                    }
                    try record.insert(db)
                    beaconRows[beacon] = record.id!
                }
                unknownReadings = [:]
            }

            let windows = SampleWindows.windows(of: kept, size: options.windowSize)
            // Fingerprints are pure computation: built all at once, on every core, before the inserts.
            let built = options.builder.fingerprints(ofWindows: windows.map { $0.map(\.sample) })
            var sessions: [String: Int64] = [:]
            var added: [String: Int] = [:]
            let cleaning = built.cleaning
            var unusable = 0
            let inserter = try EntryInserter(db)
            let now = Date()
            for (index, window) in windows.enumerated() {
                if index % 1024 == 0 { progress?(index, windows.count) }
                guard case .success(let fingerprint) = built.results[index] else {
                    unusable += 1
                    continue
                }
                let first = window[0]
                let spotName = first.truth.spot ?? "\(first.truth.x),\(first.truth.y),\(first.truth.floor)"
                let spotID: Int64
                if let known = spotRows[spotName] {
                    spotID = known
                } else {
                    if !levels.contains(first.truth.floor) {
                        try FloorRecord(venueId: venueID, level: first.truth.floor, name: "Level \(first.truth.floor)").save(db)
                    }
                    var record = SpotRecord(
                        id: nil, venueId: venueID, name: spotName, x: first.truth.x, y: first.truth.y,
                        floor: first.truth.floor, zone: nil)
                    try record.insert(db)
                    spotID = record.id!
                    spotRows[spotName] = spotID
                    spotsCreated.append(spotName)
                }
                let device = first.sample.device
                let sessionID: Int64
                if let known = sessions[device] {
                    sessionID = known
                } else {
                    var session = SurveySessionRecord(
                        id: nil, venueId: venueID, operator: options.operator, device: device, recordedAt: now,
                        sourceFile: options.sourceFile, windowSize: options.windowSize)
                    try session.insert(db)
                    sessionID = session.id!
                    sessions[device] = sessionID
                }
                let fingerprintID = try inserter.insertFingerprint(
                    spot: spotID, session: sessionID, device: device, time: first.sample.time, sampleCount: window.count)
                try inserter.insertEntries(of: fingerprint, id: fingerprintID, beaconRows: beaconRows)
                added[spotName, default: 0] += 1
            }
            progress?(windows.count, windows.count)

            let stored = added.values.reduce(0, +)
            if stored > 0 || !beaconsAdded.isEmpty || !spotsCreated.isEmpty { try bumpRevision(of: venueID, db) }
            let coverage = try spotCoverage(venueID, db)
            let spots = coverage.filter { added[$0.spot] != nil || spotsCreated.contains($0.spot) }.map { spot in
                var spot = spot
                spot.added = added[spot.spot] ?? 0
                return spot
            }
            return RecordSummary(
                venue: venueID, samples: samples.count, fingerprints: stored, emptySamples: emptySamples,
                unusableWindows: unusable, cleaning: cleaning,
                unknownBeaconReadings: Dictionary(uniqueKeysWithValues: unknownReadings.map { ($0.key.description, $0.value) }),
                beaconsAdded: beaconsAdded.map(\.description).sorted(), spotsCreated: spotsCreated,
                spots: spots,
                spotsToRevisit: coverage.filter(\.needsRevisit).map(\.spot),
                revision: try Int.fetchOne(db, sql: "SELECT revision FROM venue WHERE id = ?", arguments: [venueID]) ?? 0)
        }
        logger.debug(
            "survey recorded",
            metadata: ["venue.id": "\(venueID)", "fingerprints": "\(summary.fingerprints)", "venue.revision": "\(summary.revision)"])
        return summary
    }

    /// Active beacons of a venue by identity, with their row ids.
    func beaconIndex(_ venueID: String, _ db: Database, includeRetired: Bool = false) throws -> [BeaconID: Int64] {
        var request = BeaconRecord.filter(BeaconRecord.Columns.venueId == venueID)
        if !includeRetired { request = request.filter(BeaconRecord.Columns.status == BeaconStatus.active.rawValue) }
        var index: [BeaconID: Int64] = [:]
        for row in try request.fetchAll(db) { index[try row.identity] = row.id! }
        return index
    }

    /// Fingerprint counts and median beacons per fingerprint, per spot of the venue.
    func spotCoverage(_ venueID: String, _ db: Database) throws -> [RecordSummary.SpotCoverage] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT s.name AS spot, f.id AS fingerprint,
              (SELECT COUNT(*) FROM fingerprintEntry e JOIN beacon b ON b.id = e.beaconId
               WHERE e.fingerprintId = f.id AND b.status = 'active') AS beacons
            FROM spot s LEFT JOIN fingerprint f ON f.spotId = s.id
            WHERE s.venueId = ? ORDER BY s.id
            """, arguments: [venueID])
        var order: [String] = []
        var beaconsPerFingerprint: [String: [Int]] = [:]
        for row in rows {
            let spot: String = row["spot"]
            if beaconsPerFingerprint[spot] == nil {
                order.append(spot)
                beaconsPerFingerprint[spot] = []
            }
            if let _: Int64 = row["fingerprint"] { beaconsPerFingerprint[spot]!.append(row["beacons"]) }
        }
        return order.map { spot in
            let counts = beaconsPerFingerprint[spot]!.sorted()
            return RecordSummary.SpotCoverage(
                spot: spot, added: 0, total: counts.count, medianBeacons: counts.isEmpty ? 0 : counts[counts.count / 2])
        }
    }
}

extension RecordSummary.SpotCoverage {
    /// Fewer than 3 fingerprints, or fingerprints that typically see fewer than 3 beacons.
    public var needsRevisit: Bool { total < 3 || medianBeacons < 3 }
}

/// Inserts fingerprints and their entries through SQLite's API, bypassing GRDB's `StatementArguments`,
/// which box every value and cost more than the inserts themselves here (about 16 entries per
/// fingerprint, tens of thousands of fingerprints per survey).
///
/// The statements are GRDB's (prepared, cached and finalized by it) and run inside GRDB's transaction;
/// nothing observes these tables, so GRDB's execution hooks have nothing to do.
struct EntryInserter {
    /// At most 150 rows (900 parameters) per statement: under any SQLite's limit on parameters.
    static let maximumRowsPerStatement = 150

    let db: Database
    let fingerprintStatement: Statement

    init(_ db: Database) throws {
        self.db = db
        fingerprintStatement = try db.cachedStatement(
            sql: "INSERT INTO fingerprint (spotId, sessionId, device, time, sampleCount) VALUES (?, ?, ?, ?, ?)")
    }

    /// Inserts one fingerprint row and returns its id.
    func insertFingerprint(spot: Int64, session: Int64, device: String, time: Double, sampleCount: Int) throws -> Int64 {
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
        try check(code, fingerprintStatement)
        return db.lastInsertedRowID
    }

    /// Inserts a fingerprint's entries with multi-row statements: several times faster than a statement
    /// per entry. Statements are cached by row count.
    func insertEntries(of fingerprint: Fingerprint, id: Int64, beaconRows: [BeaconID: Int64]) throws {
        var remaining = fingerprint.entries.count
        var entries = fingerprint.entries.makeIterator()
        while remaining > 0 {
            let rows = min(remaining, Self.maximumRowsPerStatement)
            let statement = try db.cachedStatement(sql: Self.entrySQL(rows: rows))
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
            try check(sqlite3_step(sqlite), statement)
            remaining -= rows
        }
    }

    private func check(_ code: Int32, _ statement: Statement) throws {
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: statement.sql)
        }
    }

    /// The multi-row insert for `rows` entries, built once per row count.
    private static let entrySQLByRows: [String] = (0...maximumRowsPerStatement).map { rows in
        "INSERT INTO fingerprintEntry (fingerprintId, beaconId, relativePower, dispersion, meanRSSI, visibility) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    static func entrySQL(rows: Int) -> String { entrySQLByRows[rows] }
}
