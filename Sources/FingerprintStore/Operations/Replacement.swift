public import Foundation
import GRDB
public import Positioning

/// One replacement or removal, as the audit trail keeps it.
public struct BeaconReplacement: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The old beacon's survey entries were handed to a new beacon.
        case replace
        /// The old beacon was retired with no successor.
        case remove
    }

    /// Nil for a dry run.
    public var id: Int64?
    public var venue: String
    public var kind: Kind
    public var old: String
    public var new: String?
    public var `operator`: String?
    public var performedAt: Date
    /// dB added to the inherited mean RSSIs (0 without calibration).
    public var offset: Double?
    /// The calibration's estimate and evidence, when one was given.
    public var calibration: ReplacementCalibration.Estimate?
    /// The replacement went ahead although the calibration was too thin (`--force`).
    public var forced: Bool
    /// Fingerprint entries the new beacon inherited.
    public var entriesInherited: Int
    public var undoneAt: Date?
    public var dryRun: Bool
    /// The venue's revision before and after (equal for a dry run).
    public var revisionBefore: Int
    public var revisionAfter: Int
}

/// What to do with a failed beacon.
public struct ReplacementRequest: Sendable {
    public var venue: String
    public var old: BeaconID
    /// Nil removes the old beacon without a successor.
    public var new: BeaconID?
    /// A short walk with ground truth at surveyed spots, in which the new beacon is live.
    public var calibration: [LabelledSample]?
    public var `operator`: String?
    /// Go ahead even when the calibration is too thin to trust.
    public var force: Bool
    /// Compute and report everything, write nothing.
    public var dryRun: Bool

    public init(
        venue: String, old: BeaconID, new: BeaconID?, calibration: [LabelledSample]? = nil, operator: String? = nil,
        force: Bool = false, dryRun: Bool = false
    ) {
        self.venue = venue
        self.old = old
        self.new = new
        self.calibration = calibration
        self.operator = `operator`
        self.force = force
        self.dryRun = dryRun
    }
}

struct BeaconReplacementRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "beaconReplacement"
    var id: Int64?
    var venueId: String
    var kind: String
    var oldBeaconId: Int64
    var newBeaconId: Int64?
    var newBeaconCreated: Bool
    var newBeaconPreviousStatus: String?
    var `operator`: String?
    var performedAt: Date
    var offsetDB: Double?
    var calibrationSpots: Int?
    var calibrationSpread: Double?
    var calibrationSummary: String?
    var forced: Bool
    var undoneAt: Date?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension FingerprintStore {
    /// Replaces a failed beacon by a new one, or removes it, in one transaction (rolled back for a dry run).
    ///
    /// Replacing: the new beacon inherits every survey entry of the old one, its mean RSSI shifted by the
    /// calibration's offset (0 without calibration); the old beacon is retired and the venue's revision
    /// increases, so a running daemon switches over. Removing: the old beacon is retired, so live scans,
    /// which cannot hear it, are no longer penalised for its absence.
    ///
    /// - Throws: ``StoreError`` for unknown venues or beacons, a retired old beacon, a new beacon that
    ///   already has survey entries, or a calibration too thin to trust (unless `force`).
    public func replaceBeacon(_ request: ReplacementRequest, scale: any RelativePowerScale) throws -> BeaconReplacement {
        try transaction(dryRun: request.dryRun) { db in
            let venue = try venueDetails(request.venue, db)
            let old = try beaconRow(request.old, in: request.venue, db)
            guard old.status == .active else {
                throw StoreError.conflict("beacon \(request.old) is already retired in venue '\(request.venue)'")
            }
            let oldEntries = try FingerprintEntryRecord.filter(FingerprintEntryRecord.Columns.beaconId == old.id!).fetchAll(db)
            var record = BeaconReplacementRecord(
                id: nil, venueId: request.venue, kind: BeaconReplacement.Kind.remove.rawValue, oldBeaconId: old.id!,
                newBeaconId: nil, newBeaconCreated: false, newBeaconPreviousStatus: nil, operator: request.operator,
                performedAt: Date(), offsetDB: nil, calibrationSpots: nil, calibrationSpread: nil,
                calibrationSummary: nil, forced: false, undoneAt: nil)
            var estimate: ReplacementCalibration.Estimate?
            var inherited: [Int64] = []

            if let newID = request.new {
                guard newID != request.old else { throw StoreError.invalidInput("the new beacon must differ from the old one") }
                record.kind = BeaconReplacement.Kind.replace.rawValue
                var newRow: BeaconRecord
                if let existing = try BeaconRecord.filter(BeaconRecord.Columns.venueId == request.venue)
                    .filter(BeaconRecord.matching(newID)).fetchOne(db)
                {
                    let entries = try FingerprintEntryRecord.filter(FingerprintEntryRecord.Columns.beaconId == existing.id!).fetchCount(db)
                    guard entries == 0 else {
                        throw StoreError.conflict("beacon \(newID) already has \(entries) survey entries in venue '\(request.venue)'; a replacement must be a beacon the survey has not seen")
                    }
                    newRow = existing
                    record.newBeaconPreviousStatus = existing.status.rawValue
                    newRow.status = .active
                    try newRow.update(db)
                } else {
                    // The new beacon hangs where the old one did: it inherits its place and label.
                    newRow = BeaconRecord(
                        id: nil, venueId: request.venue, uuid: newID.uuid.uuidString, major: Int(newID.major),
                        minor: Int(newID.minor), label: old.label, x: old.x, y: old.y, floor: old.floor,
                        measuredPower: old.measuredPower, status: .active)
                    try newRow.insert(db)
                    record.newBeaconCreated = true
                }
                record.newBeaconId = newRow.id!

                if let calibration = request.calibration {
                    let result = try calibrationEstimate(calibration, old: request.old, new: newID, venue: venue, db)
                    estimate = result
                    if !result.isTrustworthy, !request.force {
                        throw StoreError.conflict("the calibration is too thin to trust: " + result.problems.joined(separator: "; ") + " (--force overrides)")
                    }
                    record.forced = !result.isTrustworthy
                    record.offsetDB = result.offset
                    record.calibrationSpots = result.evidence.count
                    record.calibrationSpread = result.spread
                    record.calibrationSummary = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
                } else {
                    record.offsetDB = 0
                }

                let offset = record.offsetDB ?? 0
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO fingerprintEntry (fingerprintId, beaconId, relativePower, dispersion, meanRSSI, visibility)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """)
                let strongest = try db.cachedStatement(sql: """
                    SELECT MAX(e.meanRSSI) FROM fingerprintEntry e JOIN beacon b ON b.id = e.beaconId
                    WHERE e.fingerprintId = ? AND b.status = 'active' AND e.beaconId <> ?
                    """)
                for entry in oldEntries {
                    let meanRSSI = entry.meanRSSI + offset
                    let others = try Double.fetchOne(strongest, arguments: [entry.fingerprintId, old.id!])
                    let relative = scale.relativePower(rssi: meanRSSI, strongest: max(meanRSSI, others ?? meanRSSI))
                    try insert.execute(arguments: [
                        entry.fingerprintId, newRow.id!, Double(relative), entry.dispersion, meanRSSI, entry.visibility,
                    ])
                    inherited.append(entry.fingerprintId)
                }
            }

            var retired = old
            retired.status = .retired
            try retired.update(db)
            try record.insert(db)
            let entry = try db.cachedStatement(sql: "INSERT INTO replacementEntry (replacementId, fingerprintId) VALUES (?, ?)")
            for fingerprint in inherited { try entry.execute(arguments: [record.id!, fingerprint]) }
            try bumpRevision(of: request.venue, db)
            let after = try revision(of: request.venue, db)
            var report = try replacement(record, db)
            report.calibration = estimate
            report.dryRun = request.dryRun
            report.revisionBefore = venue.revision
            report.revisionAfter = request.dryRun ? venue.revision : after
            if request.dryRun { report.id = nil }
            return report
        }
    }

    /// The venue's replacements and removals, newest first.
    public func replacements(of venueID: String) throws -> [BeaconReplacement] {
        try writer.read { db in
            try venueRecord(venueID, db)
            return try BeaconReplacementRecord.filter(Column("venueId") == venueID).order(Column("id").desc).fetchAll(db)
                .map { try replacement($0, db) }
        }
    }

    /// Reverses replacement `id` exactly: the inherited entries are deleted, the old beacon is active again,
    /// the new beacon is deleted (or gets its former status back), and the revision increases again.
    public func undoReplacement(_ id: Int64, venue venueID: String, dryRun: Bool = false) throws -> BeaconReplacement {
        try transaction(dryRun: dryRun) { db in
            let venue = try venueDetails(venueID, db)
            guard var record = try BeaconReplacementRecord.fetchOne(db, key: id), record.venueId == venueID else {
                throw StoreError.invalidInput("venue '\(venueID)' has no replacement \(id)")
            }
            guard record.undoneAt == nil else { throw StoreError.conflict("replacement \(id) was already undone") }
            let involved = [record.oldBeaconId] + (record.newBeaconId.map { [$0] } ?? [])
            let later = try BeaconReplacementRecord
                .filter(Column("venueId") == venueID && Column("id") > id && Column("undoneAt") == nil)
                .fetchAll(db)
                .filter { involved.contains($0.oldBeaconId) || ($0.newBeaconId.map(involved.contains) ?? false) }
            if let blocking = later.first {
                throw StoreError.conflict("replacement \(blocking.id!) came later and involves the same beacons; undo it first")
            }
            if let newBeacon = record.newBeaconId {
                try db.execute(sql: """
                    DELETE FROM fingerprintEntry WHERE beaconId = ?
                      AND fingerprintId IN (SELECT fingerprintId FROM replacementEntry WHERE replacementId = ?)
                    """, arguments: [newBeacon, id])
                let remaining = try FingerprintEntryRecord.filter(FingerprintEntryRecord.Columns.beaconId == newBeacon).fetchCount(db)
                if record.newBeaconCreated, remaining == 0 {
                    // Keep the row while the audit trail points at it, but out of positioning.
                    try db.execute(sql: "UPDATE beacon SET status = 'retired' WHERE id = ?", arguments: [newBeacon])
                } else if let previous = record.newBeaconPreviousStatus {
                    try db.execute(sql: "UPDATE beacon SET status = ? WHERE id = ?", arguments: [previous, newBeacon])
                }
            }
            try db.execute(sql: "UPDATE beacon SET status = 'active' WHERE id = ?", arguments: [record.oldBeaconId])
            record.undoneAt = Date()
            try record.update(db)
            try bumpRevision(of: venueID, db)
            var report = try replacement(record, db)
            report.dryRun = dryRun
            report.revisionBefore = venue.revision
            report.revisionAfter = dryRun ? venue.revision
                : try revision(of: venueID, db)
            return report
        }
    }

    /// Runs `body` in one write transaction, committed, or rolled back when `dryRun` is set.
    func transaction<T>(dryRun: Bool, _ body: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(db)
                return dryRun ? .rollback : .commit
            }
            return result!
        }
    }

    func beaconRow(_ beacon: BeaconID, in venueID: String, _ db: Database) throws -> BeaconRecord {
        guard let row = try BeaconRecord.filter(BeaconRecord.Columns.venueId == venueID)
            .filter(BeaconRecord.matching(beacon)).fetchOne(db)
        else { throw StoreError.unknownBeacon(venue: venueID, beacon: beacon.description) }
        return row
    }

    /// The calibration walk against the survey at its spots.
    private func calibrationEstimate(
        _ calibration: [LabelledSample], old: BeaconID, new: BeaconID, venue: VenueDetails, _ db: Database
    ) throws -> ReplacementCalibration.Estimate {
        // One calibration fingerprint per spot, from all its samples (any device, any order).
        var bySpot: [String: [Sample]] = [:]
        for labelled in calibration where !labelled.sample.readings.isEmpty {
            let name = labelled.truth.spot
                ?? venue.spots.nearest(toX: labelled.truth.x, y: labelled.truth.y, floor: labelled.truth.floor)?.name
            if let name { bySpot[name, default: []].append(labelled.sample) }
        }
        let builder = FingerprintBuilder()
        var walked: [String: Fingerprint] = [:]
        for (spot, samples) in bySpot {
            if let fingerprint = try? builder.fingerprint(of: samples) { walked[spot] = fingerprint }
        }
        // The survey's fingerprints at those spots, with the old beacon still in them.
        var identities: [Int64: BeaconID] = [:]
        for row in try BeaconRecord.filter(BeaconRecord.Columns.venueId == venue.id).fetchAll(db) {
            identities[row.id!] = try row.identity
        }
        var surveyed: [String: [Fingerprint]] = [:]
        let rows = try Row.fetchAll(db, sql: """
            SELECT s.name, f.id, e.beaconId, e.meanRSSI FROM fingerprint f JOIN spot s ON s.id = f.spotId
            JOIN fingerprintEntry e ON e.fingerprintId = f.id JOIN beacon b ON b.id = e.beaconId
            WHERE s.venueId = ? AND b.status = 'active' ORDER BY f.id
            """, arguments: [venue.id])
        var fingerprints: [Int64: (spot: String, entries: [BeaconID: FingerprintEntry])] = [:]
        for row in rows where walked[row[0] as String] != nil {
            let id: Int64 = row[1]
            let entry = FingerprintEntry(relativePower: 0, meanRSSI: row[3], dispersion: 0, visibility: 1)
            fingerprints[id, default: (row[0], [:])].entries[identities[row[2]]!] = entry
        }
        for (_, fingerprint) in fingerprints {
            surveyed[fingerprint.spot, default: []].append(Fingerprint(entries: fingerprint.entries, sampleCount: 1))
        }
        return ReplacementCalibration().estimate(old: old, new: new, survey: surveyed, calibration: walked)
    }

    private func replacement(_ record: BeaconReplacementRecord, _ db: Database) throws -> BeaconReplacement {
        func identity(_ id: Int64?) throws -> String? {
            guard let id, let row = try BeaconRecord.fetchOne(db, key: id) else { return nil }
            return try row.identity.description
        }
        let calibration = try record.calibrationSummary.map {
            try JSONDecoder().decode(ReplacementCalibration.Estimate.self, from: Data($0.utf8))
        }
        let inherited = try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM replacementEntry WHERE replacementId = ?", arguments: [record.id]) ?? 0
        let revision = try revision(of: record.venueId, db)
        return BeaconReplacement(
            id: record.id, venue: record.venueId, kind: BeaconReplacement.Kind(rawValue: record.kind) ?? .replace,
            old: try identity(record.oldBeaconId) ?? "?", new: try identity(record.newBeaconId), operator: record.operator,
            performedAt: record.performedAt, offset: record.offsetDB, calibration: calibration, forced: record.forced,
            entriesInherited: inherited, undoneAt: record.undoneAt, dryRun: false, revisionBefore: revision,
            revisionAfter: revision)
    }
}
