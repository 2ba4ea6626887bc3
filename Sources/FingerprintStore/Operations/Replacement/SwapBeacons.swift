import Foundation
public import Positioning

extension FingerprintStore {
    /// Exchanges the ids of two active beacons in the survey, in one transaction (rolled back for a dry
    /// run): each had been hung in the other's place, so the row at each place, with its survey entries,
    /// label and position, takes the id now heard there. Audited as a replacement of kind `swap`, undone by
    /// ``undoReplacement(_:venue:dryRun:)`` like the others; the revision increases.
    public func swapBeacons(
        venue venueID: String, _ first: BeaconID, _ second: BeaconID, operator: String?, proposal: BeaconProposal? = nil, dryRun: Bool = false
    ) async throws -> BeaconReplacement {
        try await sqlTransaction(dryRun: dryRun) { db in
            try await self.swapBeacons(venue: venueID, first, second, operator: `operator`, proposal: proposal, dryRun: dryRun, db)
        }
    }

    /// ``swapBeacons(venue:_:_:operator:proposal:dryRun:)`` within `db`'s transaction.
    func swapBeacons(
        venue venueID: String, _ first: BeaconID, _ second: BeaconID, operator: String?, proposal: BeaconProposal?, dryRun: Bool,
        _ db: any SQLTransaction
    ) async throws -> BeaconReplacement {
        guard first != second else { throw StoreError.invalidInput("a beacon cannot be swapped with itself") }
        do {
            let venue = try await self.venueDetails(venueID, db)
            let a = try await self.beaconRow(first, in: venueID, db), b = try await self.beaconRow(second, in: venueID, db)
            for row in [a, b] where row.status != .active {
                throw StoreError.conflict("beacon \(try row.identity) is retired in venue '\(venueID)'; only active beacons can be swapped")
            }
            try await Self.exchangeIdentities(a, b, db)
            var record = BeaconReplacementRecord(
                id: nil, venueId: venueID, kind: .swap, oldBeaconId: a.id!, newBeaconId: b.id!, newBeaconCreated: false,
                newBeaconPreviousStatus: nil, operator: `operator`, performedAt: Date(), offsetDB: proposal?.offset,
                calibrationSpots: proposal?.places, calibrationSpread: proposal?.spread,
                calibrationSummary: try proposal.map { String(decoding: try JSONEncoder().encode(ProposalSummary(proposal: $0)), as: UTF8.self) },
                forced: false, undoneAt: nil)
            try await record.insert(db)
            try await self.bumpRevision(of: venueID, db)
            var report = try await self.replacement(record, db)
            report.dryRun = dryRun
            report.revisionBefore = venue.revision
            report.revisionAfter = dryRun ? venue.revision : try await self.revision(of: venueID, db)
            if dryRun { report.id = nil }
            return report
        }
    }

    /// Gives row `a` the id of row `b` and `b` the id of `a`. The id is unique per venue, so `a` passes
    /// through an id no beacon has (a text that is not a UUID) on the way.
    static func exchangeIdentities(_ a: BeaconRecord, _ b: BeaconRecord, _ db: any SQLTransaction) async throws {
        try await db.execute("UPDATE beacon SET uuid = \("swapping-\(a.id!)") WHERE id = \(a.id!)")
        try await db.execute("UPDATE beacon SET uuid = \(a.uuid), major = \(a.major), minor = \(a.minor) WHERE id = \(b.id!)")
        try await db.execute("UPDATE beacon SET uuid = \(b.uuid), major = \(b.major), minor = \(b.minor) WHERE id = \(a.id!)")
    }
}

/// A proposal kept in a replacement's audit row, told apart from a calibration walk's estimate by its key.
struct ProposalSummary: Codable {
    var proposal: BeaconProposal
}
