import Foundation
import Positioning

extension FingerprintStore {
    /// The venue's replacements and removals, newest first.
    /// Read without blocking a thread of Swift's concurrency pool.
    public func replacements(of venueID: String) async throws -> [BeaconReplacement] {
        try await sqlRead { db in try await self.replacements(of: venueID, db) }
    }

    func replacements(of venueID: String, _ db: any SQLTransaction) async throws -> [BeaconReplacement] {
        try await venueRecord(venueID, db)
        var replacements: [BeaconReplacement] = []
        for record in try await BeaconReplacementRecord.all(of: venueID, db) { replacements.append(try await replacement(record, db)) }
        return replacements
    }

    /// Reverses replacement `id` exactly: the inherited entries are deleted, the old beacon is active again,
    /// the new beacon is deleted (or gets its former status back), and the revision increases again.
    public func undoReplacement(_ id: Int64, venue venueID: String, dryRun: Bool = false) async throws -> BeaconReplacement {
        try await sqlTransaction(dryRun: dryRun) { db in
            let venue = try await self.venueDetails(venueID, db)
            guard var record = try await BeaconReplacementRecord.find(id: id, db), record.venueId == venueID else {
                throw StoreError.invalidInput("venue '\(venueID)' has no replacement \(id)")
            }
            guard record.undoneAt == nil else { throw StoreError.conflict("replacement \(id) was already undone") }
            let involved = [record.oldBeaconId] + (record.newBeaconId.map { [$0] } ?? [])
            let later = try await BeaconReplacementRecord.all(of: venueID, db)
                .filter { $0.id! > id && $0.undoneAt == nil }
                .reversed()
                .filter { involved.contains($0.oldBeaconId) || ($0.newBeaconId.map(involved.contains) ?? false) }
            if let blocking = later.first {
                throw StoreError.conflict("replacement \(blocking.id!) came later and involves the same beacons; undo it first")
            }
            if record.kind == .swap, let newBeacon = record.newBeaconId {
                // The rows exchange their ids back.
                guard let a = try await BeaconRecord.find(id: record.oldBeaconId, db), let b = try await BeaconRecord.find(id: newBeacon, db) else {
                    throw StoreError.conflict("swap \(id) names a beacon row that no longer exists")
                }
                try await Self.exchangeIdentities(a, b, db)
            } else if let newBeacon = record.newBeaconId {
                try await db.execute("""
                    DELETE FROM fingerprintEntry WHERE beaconId = \(newBeacon)
                      AND fingerprintId IN (SELECT fingerprintId FROM replacementEntry WHERE replacementId = \(id))
                    """)
                let remaining = try await FingerprintEntryRecord.count(ofBeacon: newBeacon, db)
                if record.newBeaconCreated, remaining == 0 {
                    // Keep the row while the audit trail points at it, but out of positioning.
                    try await db.execute("UPDATE beacon SET status = 'retired' WHERE id = \(newBeacon)")
                } else if let previous = record.newBeaconPreviousStatus {
                    try await db.execute("UPDATE beacon SET status = \(previous.rawValue) WHERE id = \(newBeacon)")
                }
            }
            try await db.execute("UPDATE beacon SET status = 'active' WHERE id = \(record.oldBeaconId)")
            record.undoneAt = SQLValue.storedPrecision(Date())
            try await record.update(db)
            try await self.bumpRevision(of: venueID, db)
            var report = try await self.replacement(record, db)
            report.dryRun = dryRun
            report.revisionBefore = venue.revision
            report.revisionAfter = dryRun ? venue.revision
                : try await self.revision(of: venueID, db)
            return report
        }
    }

    /// A stored replacement as the audit trail shows it.
    func replacement(_ record: BeaconReplacementRecord, _ db: any SQLTransaction) async throws -> BeaconReplacement {
        func identity(_ id: Int64?) async throws -> String? {
            guard let id, let row = try await BeaconRecord.find(id: id, db) else { return nil }
            return try row.identity.description
        }
        // The summary is a calibration walk's estimate or, for a replacement or swap from a proposal, the proposal.
        let proposal = record.calibrationSummary.flatMap { try? JSONDecoder().decode(ProposalSummary.self, from: Data($0.utf8)).proposal }
        let calibration = try proposal != nil ? nil : record.calibrationSummary.map {
            try JSONDecoder().decode(ReplacementCalibration.Estimate.self, from: Data($0.utf8))
        }
        let inherited = try await db.count("SELECT COUNT(*) FROM replacementEntry WHERE replacementId = \(record.id)")
        let revision = try await revision(of: record.venueId, db)
        guard var old = try await identity(record.oldBeaconId) else {
            throw StoreError.conflict("replacement \(record.id.map(String.init) ?? "?") names beacon row \(record.oldBeaconId), which no longer exists")
        }
        var new = try await identity(record.newBeaconId)
        if record.kind == .swap, record.undoneAt == nil, let other = new {
            // A swap exchanged the rows' ids: the audit names them as they were before it.
            new = old
            old = other
        }
        return BeaconReplacement(
            id: record.id, venue: record.venueId, kind: record.kind,
            old: old, new: new, operator: record.operator,
            performedAt: record.performedAt, offset: record.offsetDB, calibration: calibration, proposal: proposal, forced: record.forced,
            entriesInherited: inherited, undoneAt: record.undoneAt, dryRun: false, revisionBefore: revision,
            revisionAfter: revision)
    }
}
