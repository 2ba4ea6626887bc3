import Foundation
import GRDB
public import Positioning

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
                id: nil, venueId: request.venue, kind: .remove, oldBeaconId: old.id!,
                newBeaconId: nil, newBeaconCreated: false, newBeaconPreviousStatus: nil, operator: request.operator,
                performedAt: Date(), offsetDB: nil, calibrationSpots: nil, calibrationSpread: nil,
                calibrationSummary: nil, forced: false, undoneAt: nil)
            var estimate: ReplacementCalibration.Estimate?
            var inherited: [Int64] = []

            if let newID = request.new {
                guard newID != request.old else { throw StoreError.invalidInput("the new beacon must differ from the old one") }
                record.kind = .replace
                var newRow: BeaconRecord
                if let existing = try BeaconRecord.filter(BeaconRecord.Columns.venueId == request.venue)
                    .filter(BeaconRecord.matching(newID)).fetchOne(db)
                {
                    let entries = try FingerprintEntryRecord.filter(FingerprintEntryRecord.Columns.beaconId == existing.id!).fetchCount(db)
                    guard entries == 0 else {
                        throw StoreError.conflict("beacon \(newID) already has \(entries) survey entries in venue '\(request.venue)'; a replacement must be a beacon the survey has not seen")
                    }
                    newRow = existing
                    record.newBeaconPreviousStatus = existing.status
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

    func beaconRow(_ beacon: BeaconID, in venueID: String, _ db: Database) throws -> BeaconRecord {
        guard let row = try BeaconRecord.filter(BeaconRecord.Columns.venueId == venueID)
            .filter(BeaconRecord.matching(beacon)).fetchOne(db)
        else { throw StoreError.unknownBeacon(venue: venueID, beacon: beacon.description) }
        return row
    }
}
