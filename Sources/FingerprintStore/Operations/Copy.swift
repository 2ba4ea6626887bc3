import Foundation
import ScanFormats

/// What ``FingerprintStore/copyVenues(_:from:)`` copied of one venue.
public struct VenueCopySummary: Hashable, Sendable, Codable {
    public var venue: String
    public var fingerprints: Int
    public var entries: Int
    public var floorPlans: Int
    /// Whether the venue's tuning came along (it does whenever the source has one).
    public var tuned: Bool
    /// The venue's revision in the target store afterwards.
    public var revision: Int
}

extension FingerprintStore {
    /// Copies venues from `source` into this store: definition (retired beacons included), floor plans,
    /// zone polygons, every fingerprint exactly, and the stored tuning. Read in one transaction on the
    /// source and written in **one** transaction here, so a failure anywhere leaves this store as it was.
    /// The stores may be on different engines (a SQLite file into a cluster's PostgreSQL, or back).
    ///
    /// - Parameter venues: the venues to copy, nil for every venue of the source.
    /// - Throws: ``StoreError/unknownVenue(_:)`` for a venue the source lacks, ``StoreError/conflict(_:)``
    ///   when one already has fingerprints here (a copy adds, so copying twice would double the survey).
    public func copyVenues(_ venues: [String]?, from source: FingerprintStore) async throws -> [VenueCopySummary] {
        let read = try await source.sqlRead { transaction in
            let ids = if let venues { venues } else {
                try await transaction.rows("SELECT id FROM venue ORDER BY id").map { try $0.text("id") }
            }
            var read: [(details: VenueDetails, plans: [Int: FloorPlanImage], fingerprints: [ExportedFingerprint], tuning: SQLRow?)] = []
            for id in ids {
                let details = try await source.venueDetails(id, transaction)
                let plans = try await FloorPlanRecord.all(of: id, transaction).reduce(into: [Int: FloorPlanImage]()) {
                    $0[$1.level] = FloorPlanImage(data: $1.data, mediaType: $1.mediaType)
                }
                read.append((
                    details: details, plans: plans, fingerprints: try await source.exportFingerprints(of: id, transaction),
                    tuning: try await transaction.rows("SELECT revision, configuration, report, tunedAt, seconds FROM venueTuning WHERE venueId = \(id)").first))
            }
            return read
        }
        let summaries = try await sqlWrite { transaction in
            var summaries: [VenueCopySummary] = []
            for venue in read {
                let id = venue.details.id
                let imported = try await self.importExport(
                    venue: venue.details.definition(includingRetired: true), plans: venue.plans, fingerprints: venue.fingerprints, transaction)
                var revision = imported.revision
                if let tuning = venue.tuning {
                    // A tuning made at the source's current revision describes the copied survey as it is: it is
                    // current here too. An older one stays older (one revision before the copy).
                    let current = try tuning.int("revision") == venue.details.revision
                    if current { try await self.bumpRevision(of: id, transaction) }
                    revision = try await self.revision(of: id, transaction)
                    try await transaction.execute(
                        """
                        INSERT INTO venueTuning (venueId, revision, configuration, report, tunedAt, seconds) VALUES (\(id), \(current ? revision : revision - 1), \(tuning["configuration"]), \(tuning["report"]), \(tuning["tunedAt"]), \(tuning["seconds"]))
                        ON CONFLICT(venueId) DO UPDATE SET revision = excluded.revision, configuration = excluded.configuration,
                        report = excluded.report, tunedAt = excluded.tunedAt, seconds = excluded.seconds
                        """)
                }
                summaries.append(VenueCopySummary(
                    venue: id, fingerprints: imported.fingerprints, entries: imported.entries, floorPlans: venue.plans.count,
                    tuned: venue.tuning != nil, revision: revision))
            }
            return summaries
        }
        logger.debug("venues copied", metadata: ["venues": "\(summaries.map(\.venue))", "source": "\(source.path)"])
        return summaries
    }
}
