import Foundation
public import Positioning

extension FingerprintStore {
    /// The venue's proposals, newest first; only those of `status` when given.
    public func beaconProposals(of venue: String, status: StoredProposal.Status? = nil) async throws -> [StoredProposal] {
        try await sqlRead { db in
            try await self.venueRecord(venue, db)
            let condition: SQLStatement = if let status { " AND status = \(status.rawValue)" } else { "" }
            return try await db.rows("SELECT * FROM beaconProposal WHERE venueId = \(venue)\(sql: condition) ORDER BY id DESC")
                .map(Self.proposalRecord)
        }
    }

    /// Accepts open proposal `id` of `venue` in one transaction (rolled back for a dry run): a replacement
    /// hands the silent beacon's survey entries to the new id shifted by the proposal's offset, as
    /// `replace-beacon replace --calibration` does with a walk's; a swap exchanges the two ids. Either is
    /// audited with the replacements (undone by `replace-beacon undo`), the proposal is marked accepted, the
    /// monitor forgets what it concluded of the beacons involved, and the revision increases.
    public func acceptBeaconProposal(
        venue: String, id: Int64, operator: String?, scale: any RelativePowerScale, dryRun: Bool = false
    ) async throws -> (proposal: StoredProposal, replacement: BeaconReplacement) {
        try await daemonTransaction(dryRun: dryRun) { db in
            var stored = try await self.openProposal(venue: venue, id: id, db)
            let proposal = stored.proposal
            let replacement: BeaconReplacement = switch proposal.kind {
            case .replace:
                try await self.replaceBeacon(
                    ReplacementRequest(venue: venue, old: proposal.old, new: proposal.new, operator: `operator`, dryRun: dryRun, proposal: proposal),
                    scale: scale, db)
            case .swap:
                try await self.swapBeacons(venue: venue, proposal.old, proposal.new, operator: `operator`, proposal: proposal, dryRun: dryRun, db)
            }
            let now = SQLValue.storedPrecision(Date())
            try await db.execute("""
                UPDATE beaconProposal SET status = 'accepted', decidedAt = \(now), operator = \(`operator`), replacementId = \(replacement.id)
                WHERE id = \(id)
                """)
            if var health = try await self.storedBeaconHealth(of: venue, db) {
                health.monitor.accept(proposal)
                health.version += 1
                health.updatedAt = now
                try await self.write(health, db)
            }
            stored.status = .accepted
            stored.decidedAt = now
            stored.operator = `operator`
            stored.replacement = replacement.id
            return (stored, replacement)
        }
    }

    /// Dismisses open proposal `id` of `venue` (ops judged it wrong): it is not proposed again until one of its
    /// beacons is reset.
    public func dismissBeaconProposal(venue: String, id: Int64, operator: String?) async throws -> StoredProposal {
        try await daemonWrite { db in
            var stored = try await self.openProposal(venue: venue, id: id, db)
            let now = SQLValue.storedPrecision(Date())
            try await db.execute("UPDATE beaconProposal SET status = 'dismissed', decidedAt = \(now), operator = \(`operator`) WHERE id = \(id)")
            if var health = try await self.storedBeaconHealth(of: venue, db) {
                health.monitor.dismiss(stored.proposal)
                health.version += 1
                health.updatedAt = now
                try await self.write(health, db)
            }
            stored.status = .dismissed
            stored.decidedAt = now
            stored.operator = `operator`
            return stored
        }
    }

    private func openProposal(venue: String, id: Int64, _ db: any SQLTransaction) async throws -> StoredProposal {
        try await venueRecord(venue, db)
        guard let row = try await db.rows("SELECT * FROM beaconProposal WHERE id = \(id) AND venueId = \(venue)").first else {
            throw StoreError.unknownBeaconProposal(venue: venue, id: id)
        }
        let stored = try Self.proposalRecord(row)
        guard stored.status == .open else {
            throw StoreError.conflict("beacon proposal \(id) is \(stored.status.rawValue), not open")
        }
        return stored
    }

    func recordProposal(venue: String, _ proposal: BeaconProposal, _ db: any SQLTransaction) async throws -> StoredProposal {
        let id = try await db.insertReturningID("""
            INSERT INTO beaconProposal (venueId, kind, old, new, offsetDB, spread, reverseOffsetDB, places, readings, proposedAt, reason, status)
            VALUES (\(venue), \(proposal.kind.rawValue), \(proposal.old.description), \(proposal.new.description), \(proposal.offset),
                \(proposal.spread), \(proposal.reverseOffset), \(proposal.places), \(proposal.readings), \(proposal.time), \(proposal.reason), 'open')
            """)
        return StoredProposal(id: id, venue: venue, proposal: proposal, status: .open, decidedAt: nil, operator: nil, replacement: nil)
    }

    /// Brings the open proposals' rows in line with the monitor's: refined figures written, and the ones it
    /// no longer holds (reset, or a survey change under them) marked withdrawn.
    func withdrawStaleProposals(venue: String, open: [BeaconProposal], _ db: any SQLTransaction) async throws {
        for row in try await db.rows("SELECT * FROM beaconProposal WHERE venueId = \(venue) AND status = 'open'") {
            let stored = try Self.proposalRecord(row)
            guard let current = open.first(where: { $0.isSame(as: stored.proposal) }) else {
                try await db.execute("UPDATE beaconProposal SET status = 'withdrawn', decidedAt = \(Date()) WHERE id = \(stored.id)")
                continue
            }
            guard current != stored.proposal else { continue }
            try await db.execute("""
                UPDATE beaconProposal SET offsetDB = \(current.offset), spread = \(current.spread), reverseOffsetDB = \(current.reverseOffset),
                    places = \(current.places), readings = \(current.readings)
                WHERE id = \(stored.id)
                """)
        }
    }

    static func proposalRecord(_ row: SQLRow) throws -> StoredProposal {
        let kindText = try row.text("kind"), statusText = try row.text("status")
        guard let kind = BeaconProposal.Kind(rawValue: kindText), let status = StoredProposal.Status(rawValue: statusText) else {
            throw StoreError.storageFault("a beacon proposal holds the unknown kind '\(kindText)' or status '\(statusText)'")
        }
        let old = try row.text("old"), new = try row.text("new")
        guard let oldID = try? BeaconID(parsing: old), let newID = try? BeaconID(parsing: new) else {
            throw StoreError.storageFault("a beacon proposal names a beacon that is not UUID:major:minor ('\(old)', '\(new)')")
        }
        let proposal = BeaconProposal(
            kind: kind, old: oldID, new: newID, offset: try row.real("offsetDB"), spread: try row.real("spread"),
            reverseOffset: try row.optionalReal("reverseOffsetDB"), places: try row.int("places"), readings: try row.int("readings"),
            time: try row.real("proposedAt"), reason: try row.text("reason"))
        let replacement: Int64? = if case .null = row["replacementId"] { nil } else { try row.integer("replacementId") }
        return StoredProposal(
            id: try row.integer("id"), venue: try row.text("venueId"), proposal: proposal, status: status, decidedAt: try row.optionalDate("decidedAt"),
            operator: try row.optionalText("operator"), replacement: replacement)
    }
}
