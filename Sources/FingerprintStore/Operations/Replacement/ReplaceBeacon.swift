import Foundation
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
    public func replaceBeacon(_ request: ReplacementRequest, scale: any RelativePowerScale) async throws -> BeaconReplacement {
        try await sqlTransaction(dryRun: request.dryRun) { db in try await self.replaceBeacon(request, scale: scale, db) }
    }

    /// ``replaceBeacon(_:scale:)`` within `db`'s transaction.
    func replaceBeacon(_ request: ReplacementRequest, scale: any RelativePowerScale, _ db: any SQLTransaction) async throws -> BeaconReplacement {
        do {
            let venue = try await self.venueDetails(request.venue, db)
            let old = try await self.beaconRow(request.old, in: request.venue, db)
            guard old.status == .active else {
                throw StoreError.conflict("beacon \(request.old) is already retired in venue '\(request.venue)'")
            }
            let oldEntries = try await FingerprintEntryRecord.all(ofBeacon: old.id!, db)
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
                if let existing = try await BeaconRecord.find(newID, in: request.venue, db) {
                    let entries = try await FingerprintEntryRecord.count(ofBeacon: existing.id!, db)
                    guard entries == 0 else {
                        throw StoreError.conflict("beacon \(newID) already has \(entries) survey entries in venue '\(request.venue)'; a replacement must be a beacon the survey has not seen")
                    }
                    newRow = existing
                    record.newBeaconPreviousStatus = existing.status
                    newRow.status = .active
                    try await newRow.update(db)
                } else {
                    // The new beacon hangs where the old one did: it inherits its place and label.
                    newRow = BeaconRecord(
                        id: nil, venueId: request.venue, uuid: newID.uuid.uuidString, major: Int(newID.major),
                        minor: Int(newID.minor), label: old.label, x: old.x, y: old.y, floor: old.floor,
                        measuredPower: old.measuredPower, status: .active)
                    try await newRow.insert(db)
                    record.newBeaconCreated = true
                }
                record.newBeaconId = newRow.id!

                if let calibration = request.calibration {
                    let result = try await self.calibrationEstimate(calibration, old: request.old, new: newID, venue: venue, db)
                    estimate = result
                    if !result.isTrustworthy, !request.force {
                        throw StoreError.conflict("the calibration is too thin to trust: " + result.problems.joined(separator: "; ") + " (--force overrides)")
                    }
                    record.forced = !result.isTrustworthy
                    record.offsetDB = result.offset
                    record.calibrationSpots = result.evidence.count
                    record.calibrationSpread = result.spread
                    record.calibrationSummary = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
                } else if let proposal = request.proposal {
                    record.offsetDB = proposal.offset
                    record.calibrationSpots = proposal.places
                    record.calibrationSpread = proposal.spread
                    record.calibrationSummary = String(decoding: try JSONEncoder().encode(ProposalSummary(proposal: proposal)), as: UTF8.self)
                } else {
                    record.offsetDB = 0
                }

                let offset = record.offsetDB ?? 0
                // The strongest other active beacon of each fingerprint the old one is in: one query, not one per entry.
                var strongestOther: [Int64: Double] = [:]
                for row in try await db.rows("""
                    SELECT e.fingerprintId, MAX(e.meanRSSI) AS strongest FROM fingerprintEntry e JOIN beacon b ON b.id = e.beaconId
                    WHERE b.status = 'active' AND e.beaconId <> \(old.id!)
                      AND e.fingerprintId IN (SELECT fingerprintId FROM fingerprintEntry WHERE beaconId = \(old.id!))
                    GROUP BY e.fingerprintId
                    """) {
                    if let strongest = try row.optionalReal("strongest") { strongestOther[try row.integer("fingerprintId")] = strongest }
                }
                var rows: [[SQLValue]] = []
                for (position, entry) in oldEntries.enumerated() {
                    let meanRSSI = entry.meanRSSI + offset
                    let others = strongestOther[entry.fingerprintId]
                    let relative = scale.relativePower(rssi: meanRSSI, strongest: max(meanRSSI, others ?? meanRSSI))
                    rows.append([
                        .integer(entry.fingerprintId), .integer(newRow.id!), .real(Double(relative)), .real(entry.dispersion), .real(meanRSSI),
                        .real(entry.visibility),
                    ])
                    if rows.count == EntryInserter.maximumRowsPerStatement || position == oldEntries.count - 1 {
                        try await db.execute(EntryInserter.entries(rows))
                        rows.removeAll(keepingCapacity: true)
                    }
                    inherited.append(entry.fingerprintId)
                }
            }

            var retired = old
            retired.status = .retired
            try await retired.update(db)
            try await record.insert(db)
            for start in stride(from: 0, to: inherited.count, by: 400) {
                let chunk = inherited[start..<min(start + 400, inherited.count)]
                try await db.execute(
                    "INSERT INTO replacementEntry (replacementId, fingerprintId) VALUES \(rows: chunk.map { [SQLValue.integer(record.id!), .integer($0)] })")
            }
            try await self.bumpRevision(of: request.venue, db)
            let after = try await self.revision(of: request.venue, db)
            var report = try await self.replacement(record, db)
            report.calibration = estimate
            report.dryRun = request.dryRun
            report.revisionBefore = venue.revision
            report.revisionAfter = request.dryRun ? venue.revision : after
            if request.dryRun { report.id = nil }
            return report
        }
    }

    func beaconRow(_ beacon: BeaconID, in venueID: String, _ db: any SQLTransaction) async throws -> BeaconRecord {
        guard let row = try await BeaconRecord.find(beacon, in: venueID, db) else { throw StoreError.unknownBeacon(venue: venueID, beacon: beacon.description) }
        return row
    }
}
