
/// A venue's survey in numbers, and where it is thin.
public struct VenueStats: Hashable, Sendable, Codable {
    public struct BeaconCoverage: Hashable, Sendable, Codable {
        public var beacon: String
        public var label: String?
        /// Spots at which at least one fingerprint sees the beacon.
        public var spots: Int
        public var fingerprints: Int
    }

    public var venue: String
    public var revision: Int
    public var floors: Int
    public var spots: Int
    public var activeBeacons: Int
    public var retiredBeacons: Int
    public var sessions: Int
    public var fingerprints: Int
    public var entries: Int
    /// Active beacons no fingerprint sees: dead, misplaced, or not surveyed yet.
    public var beaconsNeverSeen: [String]
    /// Active beacons seen at fewer than 3 spots: they will barely help.
    public var beaconsSeenAtFewSpots: [BeaconCoverage]
    /// Spots with fewer than 3 fingerprints or whose fingerprints see fewer than 3 beacons.
    public var thinSpots: [RecordSummary.SpotCoverage]
}

extension FingerprintStore {
    /// Counts and coverage of a venue's survey, in one read transaction.
    public func stats(of venueID: String) async throws -> VenueStats {
        try await sqlRead { db in
            let venue = try await self.venueDetails(venueID, db)
            // Entries are aggregated once per beacon first (there is no index by beacon to join on).
            let coverageRows = try await db.rows("""
                WITH seen AS (
                  SELECT e.beaconId, COUNT(DISTINCT f.spotId) AS spots, COUNT(*) AS fingerprints
                  FROM fingerprintEntry e JOIN fingerprint f ON f.id = e.fingerprintId
                  JOIN spot s ON s.id = f.spotId WHERE s.venueId = \(venueID)
                  GROUP BY e.beaconId)
                SELECT b.uuid, b.major, b.minor, b.label,
                  COALESCE(seen.spots, 0) AS spots, COALESCE(seen.fingerprints, 0) AS fingerprints
                FROM beacon b LEFT JOIN seen ON seen.beaconId = b.id
                WHERE b.venueId = \(venueID) AND b.status = 'active'
                ORDER BY b.uuid, b.major, b.minor
                """)
            let coverage = try coverageRows.map { row in
                VenueStats.BeaconCoverage(
                    beacon: "\(try row.text("uuid")):\(try row.int("major")):\(try row.int("minor"))",
                    label: try row.optionalText("label"), spots: try row.int("spots"), fingerprints: try row.int("fingerprints"))
            }
            return VenueStats(
                venue: venueID, revision: venue.revision, floors: venue.floors.count, spots: venue.spots.count,
                activeBeacons: venue.activeBeacons.count, retiredBeacons: venue.beacons.count - venue.activeBeacons.count,
                sessions: try await db.count("SELECT COUNT(*) FROM surveySession WHERE venueId = \(venueID)"),
                fingerprints: venue.fingerprints,
                entries: try await db.count("""
                    SELECT COUNT(*) FROM fingerprintEntry e JOIN fingerprint f ON f.id = e.fingerprintId
                    JOIN spot s ON s.id = f.spotId WHERE s.venueId = \(venueID)
                    """),
                beaconsNeverSeen: coverage.filter { $0.fingerprints == 0 }.map(\.beacon),
                beaconsSeenAtFewSpots: coverage.filter { $0.fingerprints > 0 && $0.spots < 3 },
                thinSpots: try await self.spotCoverage(venueID, db).filter(\.needsRevisit))
        }
    }
}
