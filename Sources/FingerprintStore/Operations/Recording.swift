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

/// Survey samples handed to ``FingerprintStore/record(from:into:options:)`` a chunk at a time, in log order,
/// so that a long log never sits in memory decoded as a whole and the next chunk can be decoded while
/// the store writes this one.
public protocol LabelledSampleSource {
    /// The next samples in log order; nil once the log is over. A throw abandons the recording:
    /// nothing is written.
    mutating func nextChunk() throws -> [LabelledSample]?
}

/// Samples already in memory: one chunk.
struct LabelledSampleArray: LabelledSampleSource {
    var samples: [LabelledSample]?

    mutating func nextChunk() -> [LabelledSample]? {
        defer { samples = nil }
        return samples
    }
}

extension FingerprintStore {
    /// Builds fingerprints from a survey log and stores them, all in one transaction.
    ///
    /// - Parameter samples: the log's samples with their ground truth, in file order.
    /// - Throws: ``StoreError/unknownVenue(_:)``; nothing is written on any error.
    public func record(_ samples: [LabelledSample], into venueID: String, options: RecordOptions) throws -> RecordSummary {
        try record(from: LabelledSampleArray(samples: samples), into: venueID, options: options)
    }

    /// Builds fingerprints from a survey log read a chunk at a time and stores them, all in one
    /// transaction: the windows and fingerprints are exactly those of the whole log at once.
    ///
    /// - Throws: ``StoreError/unknownVenue(_:)``, or what `source` throws; nothing is written on any error.
    public func record(from source: some LabelledSampleSource, into venueID: String, options: RecordOptions) throws -> RecordSummary {
        guard options.windowSize >= 1 else { throw StoreError.invalidInput("the window must hold at least 1 sample") }
        var source = source
        let summary = try write { db -> RecordSummary in
            var recording = try SurveyRecording(store: self, venueID: venueID, options: options, db)
            while let chunk = try source.nextChunk() {
                try recording.take(chunk)
            }
            return try recording.finish()
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
    /// - Parameters:
    ///   - firstNew: only fingerprints with a smaller id are read from the database (all when nil);
    ///   - recent: beacon counts of fingerprints the caller has just written, per spot name. Every
    ///     beacon of a fingerprint being recorded is active, so they count as they are.
    func spotCoverage(
        _ venueID: String, _ db: Database, before firstNew: Int64? = nil, adding recent: [String: [Int]] = [:]
    ) throws -> [RecordSummary.SpotCoverage] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT s.name AS spot, f.id AS fingerprint,
              (SELECT COUNT(*) FROM fingerprintEntry e JOIN beacon b ON b.id = e.beaconId
               WHERE e.fingerprintId = f.id AND b.status = 'active') AS beacons
            FROM spot s LEFT JOIN fingerprint f ON f.spotId = s.id AND f.id < ?
            WHERE s.venueId = ? ORDER BY s.id
            """, arguments: [firstNew ?? Int64.max, venueID])
        var order: [String] = []
        var beaconsPerFingerprint: [String: [Int]] = [:]
        for row in rows {
            let spot: String = row["spot"]
            if beaconsPerFingerprint[spot] == nil {
                order.append(spot)
                beaconsPerFingerprint[spot] = recent[spot] ?? []
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

/// One `record` in progress, inside its write transaction: samples go in chunk by chunk, fingerprints
/// come out as their windows complete.
private struct SurveyRecording {
    let store: FingerprintStore
    let venueID: String
    let options: RecordOptions
    let db: Database
    var levels: Set<Int>
    let inserter: EntryInserter
    let startedAt = Date()
    /// Fingerprints from this id on are this recording's: coverage reads only the older ones back.
    let firstNewFingerprint: Int64
    var beaconRows: [BeaconID: Int64]
    var spotRows: [String: Int64] = [:]
    var sessions: [String: Int64] = [:]
    var windower: SampleWindower

    var samples = 0
    var emptySamples = 0
    var unusableWindows = 0
    var cleaning = CleaningReport()
    var unknownReadings: [BeaconID: Int] = [:]
    var beaconsAdded: [BeaconID] = []
    var spotsCreated: [String] = []
    /// Beacons per new fingerprint, per spot: how many fingerprints each spot got, too.
    var addedBeaconCounts: [String: [Int]] = [:]

    init(store: FingerprintStore, venueID: String, options: RecordOptions, _ db: Database) throws {
        self.store = store
        self.venueID = venueID
        self.options = options
        self.db = db
        let venue = try store.venueDetails(venueID, db)
        levels = Set(venue.floors.map(\.level))
        beaconRows = try store.beaconIndex(venueID, db)
        for row in try SpotRecord.filter(SpotRecord.Columns.venueId == venueID).fetchAll(db) {
            spotRows[row.name] = row.id!
        }
        inserter = try EntryInserter(db)
        firstNewFingerprint = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) + 1 FROM fingerprint") ?? 1
        windower = SampleWindower(size: options.windowSize)
    }

    /// Takes the next samples of the log: leaves out empty scans and unknown beacons (or adds them),
    /// and stores the windows they complete.
    mutating func take(_ chunk: [LabelledSample]) throws {
        samples += chunk.count
        var kept: [LabelledSample] = []
        kept.reserveCapacity(chunk.count)
        for var labelled in chunk {
            if labelled.sample.readings.isEmpty {
                emptySamples += 1
                continue
            }
            if labelled.sample.readings.contains(where: { beaconRows[$0.beacon] == nil }) {
                try leaveOutOrAddUnknownBeacons(of: &labelled.sample)
            }
            kept.append(labelled)
        }
        try store(windower.add(kept))
    }

    private mutating func leaveOutOrAddUnknownBeacons(of sample: inout Sample) throws {
        if options.addUnknownBeacons {
            for reading in sample.readings where beaconRows[reading.beacon] == nil {
                let beacon = reading.beacon
                if let retired = try BeaconRecord.filter(BeaconRecord.Columns.venueId == venueID)
                    .filter(BeaconRecord.matching(beacon)).fetchOne(db)
                {
                    throw StoreError.conflict(
                        "beacon \(beacon) is \(retired.status.rawValue) in venue '\(venueID)'; it cannot be added back by recording")
                }
                var record = BeaconRecord(
                    id: nil, venueId: venueID, uuid: beacon.uuid.uuidString, major: Int(beacon.major),
                    minor: Int(beacon.minor), status: .active)
                try record.insert(db)
                beaconRows[beacon] = record.id!
                beaconsAdded.append(beacon)
            }
        } else {
            var unknown = unknownReadings
            sample.readings.removeAll { reading in
                guard beaconRows[reading.beacon] == nil else { return false }
                unknown[reading.beacon, default: 0] += 1
                return true
            }
            unknownReadings = unknown
        }
    }

    /// Builds the windows' fingerprints (all at once, on every core: pure computation) and inserts them.
    private mutating func store(_ windows: [[LabelledSample]]) throws {
        guard !windows.isEmpty else { return }
        let built = options.builder.fingerprints(ofWindows: windows.map { $0.map(\.sample) })
        cleaning.add(built.cleaning)
        for (window, result) in zip(windows, built.results) {
            guard case .success(let fingerprint) = result else {
                unusableWindows += 1
                continue
            }
            let first = window[0]
            let spotName = first.truth.spotName
            let fingerprintID = try inserter.insertFingerprint(
                spot: try spotID(spotName, truth: first.truth), session: try sessionID(first.sample.device),
                device: first.sample.device, time: first.sample.time, sampleCount: window.count)
            try inserter.insertEntries(of: fingerprint, id: fingerprintID, beaconRows: beaconRows)
            addedBeaconCounts[spotName, default: []].append(fingerprint.entries.count)
        }
    }

    /// The spot's row, created from the log's coordinates (and its floor, if new) when the venue lacks it.
    private mutating func spotID(_ name: String, truth: GroundTruth) throws -> Int64 {
        if let known = spotRows[name] { return known }
        if !levels.contains(truth.floor) {
            try FloorRecord(venueId: venueID, level: truth.floor, name: "Level \(truth.floor)").save(db)
            levels.insert(truth.floor)
        }
        var record = SpotRecord(id: nil, venueId: venueID, name: name, x: truth.x, y: truth.y, floor: truth.floor, zone: nil)
        try record.insert(db)
        spotRows[name] = record.id!
        spotsCreated.append(name)
        return record.id!
    }

    /// One survey session per device of the log.
    private mutating func sessionID(_ device: String) throws -> Int64 {
        if let known = sessions[device] { return known }
        var session = SurveySessionRecord(
            id: nil, venueId: venueID, operator: options.operator, device: device, recordedAt: startedAt,
            sourceFile: options.sourceFile, windowSize: options.windowSize)
        try session.insert(db)
        sessions[device] = session.id!
        return session.id!
    }

    /// Stores the last window, bumps the revision when anything changed, and sums up.
    mutating func finish() throws -> RecordSummary {
        try store(windower.finish())
        let stored = addedBeaconCounts.values.reduce(0) { $0 + $1.count }
        if stored > 0 || !beaconsAdded.isEmpty || !spotsCreated.isEmpty { try store.bumpRevision(of: venueID, db) }
        let coverage = try store.spotCoverage(venueID, db, before: firstNewFingerprint, adding: addedBeaconCounts)
        let created = Set(spotsCreated)
        let spots = coverage.filter { addedBeaconCounts[$0.spot] != nil || created.contains($0.spot) }.map { spot in
            var spot = spot
            spot.added = addedBeaconCounts[spot.spot]?.count ?? 0
            return spot
        }
        return RecordSummary(
            venue: venueID, samples: samples, fingerprints: stored, emptySamples: emptySamples,
            unusableWindows: unusableWindows, cleaning: cleaning,
            unknownBeaconReadings: Dictionary(uniqueKeysWithValues: unknownReadings.map { ($0.key.description, $0.value) }),
            beaconsAdded: beaconsAdded.map(\.description).sorted(), spotsCreated: spotsCreated,
            spots: spots,
            spotsToRevisit: coverage.filter(\.needsRevisit).map(\.spot),
            revision: try store.revision(of: venueID, db))
    }
}
